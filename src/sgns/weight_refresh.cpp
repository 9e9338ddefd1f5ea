#include "src/sgns/weight_refresh.hpp"

namespace gridvec {

void refresh_weights(const float* weights, const float* partials, const float* now, const uint8_t* labels, float alpha,
                     float widen, size_t count, float* out) {
  // One loop without calls or branches: the compiler vectorizes it.
  for (size_t k = 0; k < count; ++k)
    out[k] = refreshed_weight(weights[k], alpha, labels[k], widen * (now[k] - partials[k]));
}

} // namespace gridvec
