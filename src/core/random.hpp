// A small, fast, seedable generator (PCG32, O'Neill 2014): the same seed gives the same
// stream on every platform and standard library, unlike std:: distributions.
#pragma once

#include <cmath>
#include <cstdint>

namespace batchsim {

class Rng {
public:
    explicit Rng(std::uint64_t seed = 0, std::uint64_t stream = 0x5851f42d4c957f2dULL)
        : increment_((stream << 1u) | 1u) {
        next_u32();
        state_ += seed;
        next_u32();
    }

    std::uint32_t next_u32() {
        const std::uint64_t old = state_;
        state_ = old * 6364136223846793005ULL + increment_;
        const auto xorshifted = static_cast<std::uint32_t>(((old >> 18u) ^ old) >> 27u);
        const auto rotation = static_cast<std::uint32_t>(old >> 59u);
        return (xorshifted >> rotation) | (xorshifted << ((32u - rotation) & 31u));
    }

    // Uniform in [0, 1): 24 random bits, exactly representable as float.
    float uniform() { return static_cast<float>(next_u32() >> 8) * (1.0f / 16777216.0f); }

    // Standard normal (Box-Muller, one of the pair; 1 - uniform() is in (0, 1], so the log
    // is finite: at most 5.8 standard deviations).
    float normal() {
        constexpr float kTwoPi = 6.28318530718f;
        const float radius = std::sqrt(-2.0f * std::log(1.0f - uniform()));
        return radius * std::cos(kTwoPi * uniform());
    }

private:
    std::uint64_t state_ = 0;
    std::uint64_t increment_;
};

}  // namespace batchsim
