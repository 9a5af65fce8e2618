#include "nav/exit_links.hpp"

#include <algorithm>
#include <cstdint>

#include <DetourCommon.h>

namespace batchsim::nav {

bool add_link(GoalCorridor& corridor, int a, int b, float least) {
    auto* const end = corridor.links.data() + corridor.link_count;
    auto* link = std::find_if(corridor.links.data(), end,
                              [&](const GoalCorridor::Link& l) { return l.a == a && l.b == b; });
    if (link == end) {
        if (corridor.link_count == GoalCorridor::kMaxLinks) return false;
        *link = {std::uint8_t(a), std::uint8_t(b), least};
        ++corridor.link_count;
    }
    link->least = std::max(link->least, least);  // one pair, the strictest of its touches
    return true;
}

bool links_hold(const GoalCorridor& corridor, const Vec3& start, const Vec3& exit) {
    if (corridor.link_count == 0) return true;
    float to_exit[GoalCorridor::kMaxRivals + 1];
    for (int r = 0; r < corridor.rival_count; ++r)
        to_exit[r] = dtVdist(start.data(), corridor.rivals[r].mid.data());
    to_exit[GoalCorridor::kWinnerSlot] = dtVdist(start.data(), exit.data());
    for (int k = 0; k < corridor.link_count; ++k) {
        const GoalCorridor::Link& link = corridor.links[k];
        if (to_exit[link.a] - to_exit[link.b] < link.least) return false;
    }
    return true;
}

}  // namespace batchsim::nav
