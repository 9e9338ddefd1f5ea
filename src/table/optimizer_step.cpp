#include "src/table/optimizer_step.hpp"

#include <cmath>

namespace gridvec {

void optimizer_step(const table_spec& spec, uint32_t width, float* value, float* slots, uint32_t& step,
                    const float* grad) {
  const float lr = spec.learning_rate, eps = spec.epsilon;
  switch (spec.optimizer) {
    case table_optimizer::sgd:
      for (uint32_t c = 0; c < width; ++c)
        value[c] -= lr * grad[c];
      return;
    case table_optimizer::adagrad:
      for (uint32_t c = 0; c < width; ++c) {
        slots[c] += grad[c] * grad[c];
        value[c] -= lr * grad[c] / (std::sqrt(slots[c]) + eps);
      }
      return;
    case table_optimizer::adam: {
      ++step;
      const float b1 = spec.beta1, b2 = spec.beta2;
      const float correct1 = 1.0f - std::pow(b1, static_cast<float>(step));
      const float correct2 = 1.0f - std::pow(b2, static_cast<float>(step));
      float* m = slots;
      float* s = slots + width;
      for (uint32_t c = 0; c < width; ++c) {
        m[c] = b1 * m[c] + (1.0f - b1) * grad[c];
        s[c] = b2 * s[c] + (1.0f - b2) * grad[c] * grad[c];
        value[c] -= lr * (m[c] / correct1) / (std::sqrt(s[c] / correct2) + eps);
      }
      return;
    }
  }
}

} // namespace gridvec
