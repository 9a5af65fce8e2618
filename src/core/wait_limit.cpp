#include "core/wait_limit.hpp"

#include <time.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim {

double process_cpu_seconds() {
    timespec now{};
    if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) != 0) return 0;
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double WaitLimit::slice_seconds() const {
    return std::chrono::duration<double>(slice).count();
}

std::optional<double> wait_timeout_override() {
    const char* text = std::getenv("BATCHSIM_WAIT_TIMEOUT_S");
    if (text == nullptr || *text == '\0') return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const double seconds = std::strtod(text, &end);
    // A year at most: nanoseconds of more would overflow the clock.
    BATCHSIM_CHECK(end != text && *end == '\0' && errno == 0 && std::isfinite(seconds) &&
                       seconds > 0 && seconds <= 3.2e7,
                   InvalidArgument,
                   str("BATCHSIM_WAIT_TIMEOUT_S: expected a number of seconds in (0, 3.2e7], got '",
                       text, "'"));
    return seconds;
}

WaitLimit wait_limit(std::chrono::nanoseconds slice, bool progress_is_cpu_time, bool overridable) {
    const std::optional<double> hard = overridable ? wait_timeout_override() : std::nullopt;
    if (!hard) return {.slice = slice, .while_busy = progress_is_cpu_time};
    const auto nanoseconds = std::chrono::duration<double, std::nano>(*hard * 1e9);
    return {.slice = std::chrono::duration_cast<std::chrono::nanoseconds>(nanoseconds),
            .while_busy = false,
            .hard = true};
}

}  // namespace batchsim
