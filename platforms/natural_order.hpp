#pragma once
// Natural ordering of names: "gpu2" < "gpu10", so that rank order follows what people mean.
#include <string_view>

namespace echo::platforms {

bool natural_less(std::string_view a, std::string_view b);

} // namespace echo::platforms
