// Cast to and from string (string to string copies through data_ops::CopyView).
//
// ONNX's Cast says numbers become "plain floating-point representation (such as 314.15926)"
// and strings parse as numbers, with "NaN", "INF", "+INF", "-INF" accepted in any case. The
// backend tests record what numpy writes (str(np.float32(x)), onnx/backend/test/case/node/
// cast.py), and so does Anvil: the shortest digits that read back as the same value of the
// source type (float16, bfloat16, float and double each their own), positional notation with at
// least one fractional digit ("1.0", "0.039187793") when 1e-4 <= |x| < 1e16, scientific with a
// two-digit exponent otherwise ("1e-05", "3.4028235e+38"), "nan", "inf", "-inf"; integers in
// decimal; bools as numpy writes them, "True" and "False". Parsing takes surrounding blanks, an
// optional sign, decimal or scientific notation, and the special words in any case; integer
// targets read integers exactly and other numbers through double (truncated toward zero, as
// Cast from float does); anything else is an error naming the element.
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "kernels/ops/data_internal.h"
#include "kernels/ops/elementwise_internal.h"

namespace anvil::elementwise {
namespace {

// The shortest scientific digits of `v` that read back as the same value of T: "d.ddde+XX".
template <typename T>
std::string ShortestScientific(T v) {
  char buffer[64];
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), v,
                                      std::chars_format::scientific);
    return std::string(buffer, result.ptr);
  } else {
    // float16 / bfloat16: the fewest significant digits whose nearest T is v.
    const float f = static_cast<float>(v);
    for (int digits = 1; digits <= 9; ++digits) {
      std::snprintf(buffer, sizeof(buffer), "%.*e", digits - 1, static_cast<double>(f));
      if (T(std::strtof(buffer, nullptr)).bits == v.bits) break;
    }
    return buffer;
  }
}

// numpy's str() of a floating-point value of type T.
template <typename T>
std::string FloatString(T value) {
  const double v = static_cast<double>(static_cast<ComputeType<T>>(value));
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  const std::string sci = ShortestScientific(value);
  // sci: [-]d[.ddd]e(+|-)XX
  const size_t e = sci.find('e');
  const bool negative = sci[0] == '-';
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int exponent = std::atoi(sci.c_str() + e + 1);
  const std::string sign = negative ? "-" : "";
  const double magnitude = std::fabs(v);
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    std::string whole, fraction;
    if (exponent >= 0) {
      whole = digits.substr(0, std::min<size_t>(digits.size(), exponent + 1));
      whole.append(exponent + 1 > static_cast<int>(whole.size()) ? exponent + 1 - whole.size() : 0,
                   '0');
      fraction = static_cast<int>(digits.size()) > exponent + 1 ? digits.substr(exponent + 1) : "0";
    } else {
      whole = "0";
      fraction = std::string(-exponent - 1, '0') + digits;
    }
    return absl::StrCat(sign, whole, ".", fraction);
  }
  std::string mantissa = digits.substr(0, 1);
  if (digits.size() > 1) absl::StrAppend(&mantissa, ".", digits.substr(1));
  char exp[8];
  std::snprintf(exp, sizeof(exp), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return absl::StrCat(sign, mantissa, exp);
}

template <typename T>
std::string NumberString(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (kIsFloatLike<T>) {
    return FloatString(v);
  } else {
    return std::to_string(v);
  }
}

// A number read from `text` as ONNX's Cast reads it (see the top), converted to To.
template <typename To>
absl::StatusOr<To> ParseNumber(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  double value;
  std::string lower(s);
  for (char& c : lower) c = absl::ascii_tolower(static_cast<unsigned char>(c));
  if (lower == "nan") {
    value = std::numeric_limits<double>::quiet_NaN();
  } else if (lower == "inf" || lower == "infinity") {
    value = std::numeric_limits<double>::infinity();
  } else {
    if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool>) {
      // Integers exactly, when the text is one.
      std::conditional_t<std::is_signed_v<To>, int64_t, uint64_t> whole;
      const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), whole);
      if (error == std::errc() && end == s.data() + s.size() && !s.empty()) {
        if constexpr (std::is_signed_v<To>) {
          return static_cast<To>(negative ? -whole : whole);
        } else {
          return static_cast<To>(negative ? 0 - whole : whole);
        }
      }
    }
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || error != std::errc() || end != s.data() + s.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", absl::CHexEscape(AsAbsl(text)), "\" is not a number"));
    }
  }
  if (negative) value = -value;
  if constexpr (std::is_same_v<To, bool>) {
    return value != 0;
  } else {
    return Convert<To>(value);
  }
}

}  // namespace

absl::Status CastWithStrings(const KernelContext& ctx, const TensorView& x, const TensorView& y) {
  const std::string_view op = ctx.node().op_type();
  if (x.type == ElementType::kString && y.type == ElementType::kString) {
    data_ops::CopyView(y, x);
    return absl::OkStatus();
  }
  if (y.type == ElementType::kString) {
    std::string* out = y.As<std::string>();
    return DispatchTypes<kAllNumericTypes>(x.type, op, [&](auto tag) -> absl::Status {
      using From = decltype(tag);
      const From* in = x.As<const From>();
      int64_t i = 0;
      ForEachOffset(x, [&](int64_t offset) { out[i++] = NumberString(in[offset]); });
      return absl::OkStatus();
    });
  }
  const std::string* in = x.As<const std::string>();
  return DispatchTypes<kAllNumericTypes>(y.type, op, [&](auto tag) -> absl::Status {
    using To = decltype(tag);
    To* out = y.As<To>();
    absl::Status status;
    int64_t i = -1;
    ForEachOffset(x, [&](int64_t offset) {
      ++i;
      if (!status.ok()) return;
      absl::StatusOr<To> v = ParseNumber<To>(in[offset]);
      if (!v.ok()) {
        status = ctx.Error(absl::StrCat("element ", i, ": ", v.status().message()));
        return;
      }
      out[i] = *v;
    });
    return status;
  });
}

}  // namespace anvil::elementwise
