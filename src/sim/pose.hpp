// Agent poses: a position on the navmesh and a unit quaternion (x, y, z, w) turning the
// agent's frame (forward -z, up +y, Habitat's convention) into the world frame.
#pragma once

#include <array>
#include <cmath>

#include "nav/navmesh.hpp"

namespace batchsim::sim {

using nav::Vec3;
using Quat = std::array<float, 4>;  // x, y, z, w

inline constexpr Quat kIdentityQuat{0.0f, 0.0f, 0.0f, 1.0f};

inline Quat multiply(const Quat& a, const Quat& b) {
    return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
            a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
            a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

// The unit quaternion of q; identity for a (near) zero one, which validation rejects earlier.
inline Quat normalized(const Quat& q) {
    const float norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(norm > 1e-12f)) return kIdentityQuat;
    return {q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm};
}

inline Quat conjugate(const Quat& q) {
    return {-q[0], -q[1], -q[2], q[3]};
}

// Rotation by `radians` about +y: positive turns left (counter-clockwise seen from above).
inline Quat yaw_rotation(float radians) {
    return {0.0f, std::sin(radians / 2), 0.0f, std::cos(radians / 2)};
}

// q v q* for a unit quaternion, as v + 2w (u x v) + 2 u x (u x v) with u = q's vector part.
inline Vec3 rotate(const Quat& q, const Vec3& v) {
    const float tx = 2 * (q[1] * v[2] - q[2] * v[1]);
    const float ty = 2 * (q[2] * v[0] - q[0] * v[2]);
    const float tz = 2 * (q[0] * v[1] - q[1] * v[0]);
    return {v[0] + q[3] * tx + (q[1] * tz - q[2] * ty), v[1] + q[3] * ty + (q[2] * tx - q[0] * tz),
            v[2] + q[3] * tz + (q[0] * ty - q[1] * tx)};
}

inline float distance(const Vec3& a, const Vec3& b) {
    const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

inline float squared_length(const Vec3& a, const Vec3& b) {
    const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

}  // namespace batchsim::sim
