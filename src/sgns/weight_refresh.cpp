#include "src/sgns/weight_refresh.hpp"

#include <algorithm>
#include <cmath>

#include "src/sgns/minibatch.hpp"

namespace gridvec {

float refreshed_weight(float weight, float alpha, uint8_t label, float drift) {
  const float value = target_label::value(label);
  const float sigma = value - weight / alpha;
  if (!(sigma > 0.0f && sigma < 1.0f))
    return weight;
  // sigma(f + drift) = sigma e^drift / (1 - sigma + sigma e^drift): no
  // logarithm needed. Past |drift| = 30 sigma is saturated either way (and
  // e^drift would overflow to inf / inf).
  const float grown = sigma * std::exp(std::clamp(drift, -30.0f, 30.0f));
  return alpha * (value - grown / (1.0f - sigma + grown));
}

} // namespace gridvec
