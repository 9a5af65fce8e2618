#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "vk/embedded_shaders.hpp"

TEST_CASE("shaders are embedded as SPIR-V") {
    const auto words = batchsim::vk::embedded_shader("fill_pattern.comp");
    REQUIRE(words.size() > 5);
    CHECK(words[0] == 0x07230203u);  // the SPIR-V magic number
    CHECK_THROWS_AS(batchsim::vk::embedded_shader("missing.comp"), batchsim::Error);
}
