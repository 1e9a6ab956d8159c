#include "exec/testing/random_model.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "exec/testing/kernel_test_util.h"
#include "graph/text_format.h"

namespace anvil {
namespace {

Tensor Bool(bool value) {
  Tensor t(ElementType::kBool, {});
  *t.As<uint8_t>() = value;
  return t;
}

// A random model of ops whose concrete dims the generator tracks, so that almost every model is
// valid; the inputs it made for them.
class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {
    for (const char* s : {"N", "M", "K"}) symbols_[s] = Coin(8) ? 0 : R(1, 3);
  }

  void Build() {
    const int num_inputs = static_cast<int>(R(1, 2));
    for (int i = 0; i < num_inputs; ++i) {
      std::vector<int64_t> dims(R(0, 3));
      for (int64_t& d : dims) d = RandomDim();
      pool_.push_back({FloatInput(dims), dims});
    }
    const int num_ops = static_cast<int>(R(3, 9));
    for (int i = 0; i < num_ops; ++i) AddOp();
    std::string last = pool_.back().name;
    if (last.rfind("in", 0) == 0) last = Unary(pool_.back()).name;
    if (uses_omitted_) lines_.insert(lines_.begin(), "  omitted = Constant <value = int64 {0}> ()");
    text_ = absl::StrCat("<ir_version: 8, opset_import: [\"\" : 17]>\ng (",
                         absl::StrJoin(input_decls_, ", "), ") => (", last, ") {\n",
                         absl::StrJoin(lines_, "\n"), "\n}\n");
  }

  const std::string& text() const { return text_; }
  const std::vector<Tensor>& inputs() const { return inputs_; }

 private:
  struct Val {
    std::string name;
    std::vector<int64_t> dims;  // at run time
  };

  int64_t R(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Coin(int one_in) { return rng_() % one_in == 0; }
  std::string Name(const std::string& prefix) { return absl::StrCat(prefix, counter_++); }
  int64_t RandomDim() { return Coin(10) ? 0 : R(1, 3); }
  static int64_t Product(const std::vector<int64_t>& dims) {
    int64_t p = 1;
    for (int64_t d : dims) p *= d;
    return p;
  }
  const Val& PickVal() { return pool_[R(0, static_cast<int64_t>(pool_.size()) - 1)]; }
  const Val* PickVal(int min_rank) {
    std::vector<const Val*> fits;
    for (const Val& v : pool_) {
      if (static_cast<int>(v.dims.size()) >= min_rank) fits.push_back(&v);
    }
    return fits.empty() ? nullptr : fits[R(0, static_cast<int64_t>(fits.size()) - 1)];
  }
  void Emit(std::string line) { lines_.push_back(absl::StrCat("  ", line)); }
  Val Push(std::string name, std::vector<int64_t> dims) {
    pool_.push_back({std::move(name), std::move(dims)});
    return pool_.back();
  }

  // How an input declares a dim of size `d`: a symbol of that size, the literal, or unknown.
  std::string DimText(int64_t d) {
    const int64_t r = R(0, 5);
    if (r <= 2) {
      for (const auto& [s, size] : symbols_) {
        if (size == d && (r <= 1 || Coin(2))) return s;
      }
    }
    if (r == 3) return "?";
    return absl::StrCat(d);
  }
  std::string TypeText(const std::string& elem, const std::vector<int64_t>& dims) {
    if (dims.empty()) return elem;
    std::vector<std::string> parts;
    for (int64_t d : dims) parts.push_back(DimText(d));
    return absl::StrCat(elem, "[", absl::StrJoin(parts, ","), "]");
  }

  std::string FloatInput(const std::vector<int64_t>& dims) {
    const std::string name = Name("in");
    input_decls_.push_back(absl::StrCat(TypeText("float", dims), " ", name));
    Tensor t(ElementType::kFloat, dims);
    for (int64_t k = 0; k < t.NumElements(); ++k) {
      t.As<float>()[k] = Coin(3) ? 0.0f : static_cast<float>(R(-4, 4)) * 0.5f;
    }
    inputs_.push_back(std::move(t));
    return name;
  }
  std::string Int64Input(const std::vector<int64_t>& values, bool scalar) {
    const std::string name = Name("in");
    const std::vector<int64_t> dims =
        scalar ? std::vector<int64_t>{} : std::vector<int64_t>{static_cast<int64_t>(values.size())};
    input_decls_.push_back(absl::StrCat(TypeText("int64", dims), " ", name));
    inputs_.push_back(kernel_testing::Int64s(dims, values));
    return name;
  }
  std::string BoolInput(bool value) {
    const std::string name = Name("in");
    input_decls_.push_back(absl::StrCat("bool ", name));
    inputs_.push_back(Bool(value));
    return name;
  }
  std::string Const(const std::vector<int64_t>& values, bool scalar = false) {
    const std::string name = Name("k");
    Emit(absl::StrCat(name, " = Constant <value = int64",
                      scalar ? "" : absl::StrCat("[", values.size(), "]"), " {",
                      absl::StrJoin(values, ", "), "}> ()"));
    return name;
  }
  std::string BoolConst(bool value) {
    const std::string name = Name("k");
    Emit(absl::StrCat(name, " = Constant <value = bool {", value ? 1 : 0, "}> ()"));
    return name;
  }
  std::string ShapeOf(const Val& v) {
    const std::string name = Name("shape");
    Emit(absl::StrCat(name, " = Shape (", v.name, ")"));
    return name;
  }
  // A value (pool value, axis) whose dim is `size`, if any.
  std::optional<std::pair<Val, int64_t>> DimOfSize(int64_t size) {
    std::vector<std::pair<Val, int64_t>> found;
    for (const Val& v : pool_) {
      for (size_t k = 0; k < v.dims.size(); ++k) {
        if (v.dims[k] == size) found.push_back({v, static_cast<int64_t>(k)});
      }
    }
    if (found.empty()) return std::nullopt;
    return found[R(0, static_cast<int64_t>(found.size()) - 1)];
  }
  // An int64 scalar holding `value`: a constant, a graph input, or a dim read with Shape.
  std::string Scalar(int64_t value) {
    const int64_t mode = R(0, 2);
    if (mode == 2 && value >= 0) {
      if (std::optional<std::pair<Val, int64_t>> dim = DimOfSize(value)) {
        const std::string name = Name("dim");
        Emit(absl::StrCat(name, " = Gather (", ShapeOf(dim->first), ", ",
                          Const({dim->second}, /*scalar=*/true), ")"));
        return name;
      }
    }
    return mode == 1 ? Int64Input({value}, /*scalar=*/true) : Const({value}, /*scalar=*/true);
  }
  // An int64[n] tensor holding `values` (n > 0): a constant, a graph input, a Shape, or a Concat
  // of constants and dims read with Shape -> Gather or Shape -> Slice.
  std::string ShapeTensor(const std::vector<int64_t>& values) {
    const int64_t mode = R(0, 4);
    if (mode == 0) return Const(values);
    if (mode == 1) return Int64Input(values, /*scalar=*/false);
    if (mode == 2) {
      for (const Val& v : pool_) {
        if (v.dims == values) return ShapeOf(v);
      }
    }
    std::vector<std::string> pieces;
    for (int64_t value : values) {
      std::optional<std::pair<Val, int64_t>> dim;
      if (value >= 0 && !Coin(4)) dim = DimOfSize(value);
      if (!dim) {
        pieces.push_back(Const({value}));
        continue;
      }
      const std::string piece = Name("piece");
      const std::string shape = ShapeOf(dim->first);
      if (Coin(2)) {
        Emit(absl::StrCat(piece, " = Gather (", shape, ", ", Const({dim->second}), ")"));
      } else {
        Emit(absl::StrCat(piece, " = Slice (", shape, ", ", Const({dim->second}), ", ",
                          Const({dim->second + 1}), ")"));
      }
      pieces.push_back(piece);
    }
    if (pieces.size() == 1) return pieces[0];
    const std::string name = Name("target");
    Emit(absl::StrCat(name, " = Concat <axis = 0> (", absl::StrJoin(pieces, ", "), ")"));
    return name;
  }

  Val Unary(const Val& x) {
    static const char* const kOps[] = {"Relu", "Neg", "Abs", "Sigmoid"};
    const std::string name = Name("u");
    Emit(absl::StrCat(name, " = ", kOps[R(0, 3)], " (", x.name, ")"));
    return Push(name, x.dims);
  }

  void Binary(const Val& x) {
    static const char* const kOps[] = {"Add", "Mul", "Sub", "Max"};
    std::string other;
    std::vector<int64_t> out = x.dims;
    for (const Val& v : pool_) {
      if (&v != &x && v.dims == x.dims && Coin(2)) other = v.name;
    }
    if (other.empty()) {
      // Broadcastable against x: each aligned dim equal or 1 (or anything where x's is 1).
      std::vector<int64_t> dims(R(0, static_cast<int64_t>(x.dims.size())));
      const size_t offset = x.dims.size() - dims.size();
      for (size_t k = 0; k < dims.size(); ++k) {
        const int64_t d = x.dims[offset + k];
        dims[k] = d == 1 ? R(1, 3) : (Coin(2) ? 1 : d);
        out[offset + k] = std::max(d, dims[k]) == 0 ? 0 : (d == 1 ? dims[k] : d);
      }
      other = FloatInput(dims);
    }
    const std::string name = Name("b");
    const bool swap = Coin(2);
    Emit(absl::StrCat(name, " = ", kOps[R(0, 3)], " (", swap ? other : x.name, ", ",
                      swap ? x.name : other, ")"));
    Push(name, out);
  }

  void Reshape(const Val& x) {
    std::vector<int64_t> target = x.dims;
    switch (R(0, 3)) {
      case 0:
        if (target.size() >= 2) {
          const size_t k = R(0, static_cast<int64_t>(target.size()) - 2);
          target[k] *= target[k + 1];
          target.erase(target.begin() + k + 1);
        }
        break;
      case 1:
        target.insert(target.begin() + R(0, static_cast<int64_t>(target.size())), 1);
        break;
      case 2:
        target = {Product(x.dims)};
        break;
      default:
        std::shuffle(target.begin(), target.end(), rng_);
        break;
    }
    if (target.empty()) target = {1};
    const bool has_zero = std::count(target.begin(), target.end(), 0) > 0;
    std::vector<int64_t> encoded = target;
    bool minus_one = false;
    for (size_t k = 0; k < encoded.size() && !has_zero; ++k) {
      if (k < x.dims.size() && x.dims[k] == target[k] && Coin(4)) {
        encoded[k] = 0;
      } else if (!minus_one && Coin(4)) {
        encoded[k] = -1;
        minus_one = true;
      }
    }
    const std::string name = Name("reshape");
    Emit(absl::StrCat(name, " = Reshape <allowzero = ", has_zero ? 1 : 0, "> (", x.name, ", ",
                      ShapeTensor(encoded), ")"));
    Push(name, target);
  }

  void Expand(const Val& x) {
    std::vector<int64_t> shape(x.dims.size() + R(0, 1));
    const size_t offset = shape.size() - x.dims.size();
    std::vector<int64_t> out(shape.size());
    for (size_t k = 0; k < shape.size(); ++k) {
      const int64_t d = k < offset ? 1 : x.dims[k - offset];
      shape[k] = d == 1 ? R(1, 3) : (Coin(2) ? 1 : d);
      out[k] = d == 1 ? shape[k] : d;
    }
    if (shape.empty()) shape = {1}, out = {1};
    const std::string name = Name("expand");
    Emit(absl::StrCat(name, " = Expand (", x.name, ", ", ShapeTensor(shape), ")"));
    Push(name, out);
  }

  void Tile(const Val& x) {
    std::vector<int64_t> repeats(x.dims.size()), out(x.dims.size());
    for (size_t k = 0; k < repeats.size(); ++k) {
      repeats[k] = Coin(8) ? 0 : R(1, 2);
      out[k] = x.dims[k] * repeats[k];
    }
    const std::string name = Name("tile");
    Emit(absl::StrCat(name, " = Tile (", x.name, ", ", ShapeTensor(repeats), ")"));
    Push(name, out);
  }

  void ConstantOfShape() {
    std::vector<int64_t> shape(R(1, 3));
    for (int64_t& d : shape) d = RandomDim();
    const std::string name = Name("filled");
    Emit(absl::StrCat(name, " = ConstantOfShape <value = float[1] {1.5}> (", ShapeTensor(shape),
                      ")"));
    Push(name, shape);
  }

  void Range() {
    const int64_t start = R(-2, 3), limit = R(-2, 5);
    const int64_t delta = std::vector<int64_t>{1, 2, -1}[R(0, 2)];
    const int64_t n = std::max<int64_t>(0, (limit - start + delta + (delta > 0 ? -1 : 1)) / delta);
    const std::string range = Name("range"), name = Name("rangef");
    Emit(absl::StrCat(range, " = Range (", Scalar(start), ", ", Scalar(limit), ", ", Scalar(delta),
                      ")"));
    Emit(absl::StrCat(name, " = Cast <to = 1> (", range, ")"));
    Push(name, {n});
  }

  void TopK(const Val& x) {
    const int64_t axis = R(0, static_cast<int64_t>(x.dims.size()) - 1);
    const int64_t k = R(0, x.dims[axis]);
    const std::string values = Name("topv"), indices = Name("topi"), cast = Name("topf");
    Emit(absl::StrCat(values, ", ", indices, " = TopK <axis = ", axis, "> (", x.name, ", ",
                      ShapeTensor({k}), ")"));
    Emit(absl::StrCat(cast, " = Cast <to = 1> (", indices, ")"));
    std::vector<int64_t> out = x.dims;
    out[axis] = k;
    Push(values, out);
    Push(cast, out);
  }

  // NonZero: a count only data decides; its users are not tracked further.
  void NonZero(const Val& x) {
    const std::string nz = Name("nz"), cast = Name("nzf"), t = Name("nzt");
    Emit(absl::StrCat(nz, " = NonZero (", x.name, ")"));
    Emit(absl::StrCat(cast, " = Cast <to = 1> (", nz, ")"));
    Emit(absl::StrCat(t, " = Transpose (", cast, ")"));
  }

  void Slice(const Val& x) {
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    std::vector<int64_t> axes(rank);
    for (int64_t k = 0; k < rank; ++k) axes[k] = k;
    std::shuffle(axes.begin(), axes.end(), rng_);
    axes.resize(R(1, rank));
    std::vector<int64_t> starts, ends, steps, out = x.dims;
    static const int64_t kBounds[] = {-1000, -3, -2, -1, 0, 1, 2, 3, 1000};
    for (int64_t a : axes) {
      const int64_t d = x.dims[a];
      int64_t start = kBounds[R(0, 8)], end = kBounds[R(0, 8)];
      const int64_t step = std::vector<int64_t>{1, 1, 2, -1, -2}[R(0, 4)];
      starts.push_back(start);
      ends.push_back(end);
      steps.push_back(step);
      if (d == 0) {
        out[a] = 0;
        continue;
      }
      if (start < 0) start += d;
      if (end < 0) end += d;
      int64_t n;
      if (step > 0) {
        start = std::clamp<int64_t>(start, 0, d);
        end = std::clamp<int64_t>(end, 0, d);
        n = end > start ? (end - start + step - 1) / step : 0;
      } else {
        start = std::clamp<int64_t>(start, 0, d - 1);
        end = std::clamp<int64_t>(end, -1, d - 1);
        n = start > end ? (start - end - step - 1) / -step : 0;
      }
      out[a] = n;
    }
    for (int64_t& a : axes) {
      if (Coin(3)) a -= rank;
    }
    const std::string name = Name("slice");
    Emit(absl::StrCat(name, " = Slice (", x.name, ", ", ShapeTensor(starts), ", ",
                      ShapeTensor(ends), ", ", Const(axes), ", ", ShapeTensor(steps), ")"));
    Push(name, out);
  }

  void Transpose(const Val& x) {
    std::vector<int64_t> perm(x.dims.size()), out(x.dims.size());
    for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int64_t>(k);
    std::shuffle(perm.begin(), perm.end(), rng_);
    for (size_t k = 0; k < perm.size(); ++k) out[k] = x.dims[perm[k]];
    const std::string name = Name("transpose");
    Emit(absl::StrCat(name, " = Transpose <perm = [", absl::StrJoin(perm, ", "), "]> (", x.name,
                      ")"));
    Push(name, out);
  }

  void ReduceSum(const Val& x) {
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    std::vector<int64_t> axes;
    for (int64_t k = 0; k < rank; ++k) {
      if (Coin(2)) axes.push_back(k);
    }
    if (axes.empty()) axes.push_back(R(0, rank - 1));
    const bool keep = Coin(2);
    std::vector<int64_t> out;
    for (int64_t k = 0; k < rank; ++k) {
      const bool reduced = std::count(axes.begin(), axes.end(), k) > 0;
      if (!reduced) out.push_back(x.dims[k]);
      if (reduced && keep) out.push_back(1);
    }
    const std::string name = Name("sum");
    Emit(absl::StrCat(name, " = ReduceSum <keepdims = ", keep ? 1 : 0, "> (", x.name, ", ",
                      ShapeTensor(axes), ")"));
    Push(name, out);
  }

  void Concat(const Val& x) {
    const int64_t axis = R(0, static_cast<int64_t>(x.dims.size()) - 1);
    std::vector<std::string> parts = {x.name};
    std::vector<int64_t> out = x.dims;
    for (const Val& v : pool_) {
      if (v.dims.size() != x.dims.size() || !Coin(2)) continue;
      bool fits = true;
      for (size_t k = 0; k < v.dims.size(); ++k) {
        fits &= static_cast<int64_t>(k) == axis || v.dims[k] == x.dims[k];
      }
      if (!fits) continue;
      parts.push_back(v.name);
      out[axis] += v.dims[axis];
    }
    const std::string name = Name("concat");
    Emit(absl::StrCat(name, " = Concat <axis = ", axis, "> (", absl::StrJoin(parts, ", "), ")"));
    Push(name, out);
  }

  void Unsqueeze(const Val& x) {
    const int64_t rank = static_cast<int64_t>(x.dims.size()) + 1;
    const int64_t axis = R(0, rank - 1);
    std::vector<int64_t> out = x.dims;
    out.insert(out.begin() + axis, 1);
    const std::string name = Name("unsqueeze");
    Emit(absl::StrCat(name, " = Unsqueeze (", x.name, ", ",
                      ShapeTensor({Coin(2) ? axis : axis - rank}), ")"));
    Push(name, out);
  }

  void Squeeze(const Val& x) {
    std::vector<int64_t> out;
    for (int64_t d : x.dims) {
      if (d != 1) out.push_back(d);
    }
    const std::string name = Name("squeeze");
    Emit(absl::StrCat(name, " = Squeeze (", x.name, ")"));
    Push(name, out);
  }

  void MatMul(const Val& x) {
    const int64_t n = R(1, 3);
    const std::string w = FloatInput({x.dims.back(), n});
    std::vector<int64_t> out = x.dims;
    out.back() = n;
    const std::string name = Name("matmul");
    Emit(absl::StrCat(name, " = MatMul (", x.name, ", ", w, ")"));
    Push(name, out);
  }

  void Gather(const Val& x) {
    const int64_t axis = R(0, static_cast<int64_t>(x.dims.size()) - 1);
    const int64_t d = x.dims[axis];
    if (d == 0) return;
    std::vector<int64_t> indices(R(1, 3));
    for (int64_t& i : indices) i = R(-d, d - 1);
    std::vector<int64_t> out(x.dims.begin(), x.dims.begin() + axis);
    const bool scalar = Coin(3);
    if (!scalar) out.push_back(static_cast<int64_t>(indices.size()));
    out.insert(out.end(), x.dims.begin() + axis + 1, x.dims.end());
    const std::string name = Name("gather");
    const std::string index = scalar ? Scalar(indices[0]) : ShapeTensor(indices);
    Emit(absl::StrCat(name, " = Gather <axis = ", axis, "> (", x.name, ", ", index, ")"));
    Push(name, out);
  }

  // Loop with a trip count that is a constant, a graph input, a dim or absent; a condition that
  // is a constant, a graph input or absent; a body condition passed through, constant true or
  // `i < limit`; maybe a carried value (kept or doubled each iteration) and scan outputs of
  // outer values, of the carried value, of `i`, and of an If on the body's condition.
  void Loop() {
    std::optional<int64_t> trip_count;
    std::string m;
    switch (R(0, 3)) {
      case 0:
        trip_count = R(-1, 3);
        m = Const({*trip_count}, /*scalar=*/true);
        break;
      case 1:
        trip_count = R(0, 3);
        m = Int64Input({*trip_count}, /*scalar=*/true);
        break;
      case 2:
        if (std::optional<std::pair<Val, int64_t>> dim = DimOfSize(R(0, 3))) {
          trip_count = dim->first.dims[dim->second];
          m = Scalar(*trip_count);
        }
        break;
      default:
        break;
    }
    std::optional<bool> cond;
    std::string c;
    switch (R(0, 3)) {
      case 0:
        cond = Coin(3) ? false : true;
        c = BoolConst(*cond);
        break;
      case 1:
        cond = Coin(2);
        c = BoolInput(*cond);
        break;
      default:
        break;
    }
    int body_cond = static_cast<int>(R(0, 3));  // Identity, constant, pass-through, i < limit
    if (!trip_count && body_cond != 3) body_cond = 3;  // it must end
    const int64_t limit = R(0, 3);

    const std::string id = absl::StrCat(counter_++);
    const std::string i = "i" + id, cin = "cin" + id, cout = "cout" + id;
    std::vector<std::string> body_inputs = {"int64 " + i, "bool " + cin};
    std::vector<std::string> body_outputs = {cout};
    std::vector<std::string> body;
    switch (body_cond) {
      case 0:
        body.push_back(absl::StrCat(cout, " = Identity (", cin, ")"));
        break;
      case 1:
        body.push_back(absl::StrCat(cout, " = Constant <value = bool {1}> ()"));
        break;
      case 2:
        body_outputs[0] = cin;
        break;
      default:
        body.push_back(absl::StrCat("lim", id, " = Constant <value = int64 {", limit, "}> ()"));
        body.push_back(absl::StrCat(cout, " = Less (", i, ", lim", id, ")"));
        break;
    }
    // The iterations the run makes.
    int64_t trips = 0;
    for (bool go = cond.value_or(true); go && (!trip_count || trips < *trip_count); ++trips) {
      go = body_cond != 3 || trips < limit;
    }

    // Omitted inputs: the text syntax cannot leave out a first input (see DropOmittedInputs).
    if (m.empty() || c.empty()) uses_omitted_ = true;
    std::vector<std::string> loop_inputs = {m.empty() ? "omitted" : m, c.empty() ? "omitted" : c};
    std::vector<std::string> loop_outputs;
    std::vector<std::optional<std::vector<int64_t>>> out_dims;
    const Val* carried = Coin(2) ? PickVal(1) : nullptr;
    bool grows = false;
    if (carried != nullptr) {
      const std::string v = "v" + id, vout = "vout" + id;
      grows = Coin(3);
      body_inputs.push_back("float[] " + v);
      body.push_back(grows ? absl::StrCat(vout, " = Concat <axis = 0> (", v, ", ", v, ")")
                           : absl::StrCat(vout, " = Add (", v, ", ", v, ")"));
      body_outputs.push_back(vout);
      loop_inputs.push_back(carried->name);
      loop_outputs.push_back(Name("carried"));
      std::vector<int64_t> dims = carried->dims;
      if (grows) dims[0] <<= trips;
      out_dims.push_back(dims);
    }
    const int num_scans = static_cast<int>(R(0, 2));
    for (int k = 0; k < num_scans; ++k) {
      const std::string s = absl::StrCat("s", id, "_", k);
      std::vector<int64_t> per_iteration;
      switch (R(0, 3)) {
        case 0: {
          const Val& y = PickVal();
          body.push_back(absl::StrCat(s, " = Add (", y.name, ", ", y.name, ")"));
          per_iteration = y.dims;
          break;
        }
        case 1:
          if (carried != nullptr && !grows) {
            body.push_back(absl::StrCat(s, " = Relu (vout", id, ")"));
            per_iteration = carried->dims;
            break;
          }
          [[fallthrough]];
        case 2:
          body.push_back(absl::StrCat(s, " = Cast <to = 1> (", i, ")"));
          break;
        default: {
          // The body's condition input is true whenever the body runs: the then branch.
          const Val& y = PickVal();
          const Val& z = PickVal();
          body.push_back(absl::StrCat(
              s, " = If (", cin, ") <then_branch = then", id, "_", k, " () => (t", id, "_", k,
              ") { t", id, "_", k, " = Neg (", y.name, ") }, else_branch = else", id, "_", k,
              " () => (e", id, "_", k, ") { e", id, "_", k, " = Relu (", z.name, ") }>"));
          per_iteration = y.dims;
          break;
        }
      }
      body_outputs.push_back(s);
      loop_outputs.push_back(Name("scan"));
      per_iteration.insert(per_iteration.begin(), trips);
      // No iteration: the per-iteration dims are the body output's declared ones.
      out_dims.push_back(trips > 0 ? std::optional<std::vector<int64_t>>(per_iteration)
                                   : std::nullopt);
    }
    if (loop_outputs.empty()) {
      body.push_back(absl::StrCat("s", id, " = Cast <to = 1> (", i, ")"));
      body_outputs.push_back("s" + id);
      loop_outputs.push_back(Name("scan"));
      out_dims.push_back(trips > 0
                             ? std::optional<std::vector<int64_t>>(std::vector<int64_t>{trips})
                             : std::nullopt);
    }
    Emit(absl::StrCat(absl::StrJoin(loop_outputs, ", "), " = Loop (",
                      absl::StrJoin(loop_inputs, ", "), ") <body = body", id, " (",
                      absl::StrJoin(body_inputs, ", "), ") => (", absl::StrJoin(body_outputs, ", "),
                      ") {\n    ", absl::StrJoin(body, "\n    "), "\n  }>"));
    for (size_t k = 0; k < loop_outputs.size(); ++k) {
      if (out_dims[k]) Push(loop_outputs[k], *out_dims[k]);
    }
  }

  void If(const Val& x) {
    const Val& y = PickVal();
    const bool cond = Coin(2);
    const std::string c = Coin(2) ? BoolConst(cond) : BoolInput(cond);
    const std::string id = absl::StrCat(counter_++);
    const std::string name = Name("if");
    Emit(absl::StrCat(name, " = If (", c, ") <then_branch = then", id, " () => (t", id, ") { t", id,
                      " = Relu (", x.name, ") }, else_branch = else", id, " () => (e", id, ") { e",
                      id, " = Neg (", y.name, ") }>"));
    Push(name, cond ? x.dims : y.dims);
  }

  void Scan(const Val& x) {
    const int64_t axis = R(0, static_cast<int64_t>(x.dims.size()) - 1);
    std::vector<int64_t> element = x.dims;
    element.erase(element.begin() + axis);
    const std::string init = FloatInput(element);
    const std::string id = absl::StrCat(counter_++);
    const std::string state = Name("state"), scan = Name("scanned");
    // The state keeps its shape, or grows by an element each iteration.
    const bool grows = !element.empty() && Coin(3);
    Emit(absl::StrCat(state, ", ", scan, " = Scan (", init, ", ", x.name,
                      ") <num_scan_inputs = 1, scan_input_axes = [", axis, "], body = body", id,
                      " (float[] st", id, ", float[] el", id, ") => (so", id, ", sc", id,
                      ") {\n    so", id, grows ? " = Concat <axis = 0> (st" : " = Add (st", id,
                      ", el", id, ")\n    sc", id, " = Mul (el", id, ", el", id, ")\n  }>"));
    std::vector<int64_t> final_state = element;
    if (grows) final_state[0] *= x.dims[axis] + 1;
    Push(state, final_state);
    if (x.dims[axis] > 0) {
      element.insert(element.begin(), x.dims[axis]);
      Push(scan, element);
    }
  }

  void AddOp() {
    const Val x = PickVal();
    const bool ranked = !x.dims.empty();
    switch (R(0, 21)) {
      case 0:
        Unary(x);
        break;
      case 1:
      case 2:
        Binary(x);
        break;
      case 3:
      case 4:
        Reshape(x);
        break;
      case 5:
        Expand(x);
        break;
      case 6:
        if (ranked) Tile(x);
        break;
      case 7:
        ConstantOfShape();
        break;
      case 8:
        Range();
        break;
      case 9:
        if (ranked) TopK(x);
        break;
      case 10:
        NonZero(x);
        break;
      case 11:
        if (ranked) Slice(x);
        break;
      case 12:
        if (ranked) Transpose(x);
        break;
      case 13:
        if (ranked) ReduceSum(x);
        break;
      case 14:
        if (ranked) Concat(x);
        break;
      case 15:
        Unsqueeze(x);
        break;
      case 16:
        Squeeze(x);
        break;
      case 17:
        if (ranked) MatMul(x);
        break;
      case 18:
        if (ranked) Gather(x);
        break;
      case 19:
      case 20:
        Loop();
        break;
      default:
        if (Coin(2)) {
          If(x);
        } else if (ranked) {
          Scan(x);
        }
        break;
    }
  }

  std::mt19937_64 rng_;
  std::map<std::string, int64_t> symbols_;
  int counter_ = 0;
  std::vector<Val> pool_;
  std::vector<std::string> input_decls_;
  std::vector<Tensor> inputs_;
  std::vector<std::string> lines_;
  std::string text_;
  bool uses_omitted_ = false;
};

// The inputs the generator named `omitted` become omitted optional inputs.
void DropOmittedInputs(Model& model) {
  model.graph().ForEachGraph([](Graph& g) {
    for (Node* n : g.nodes()) {
      for (int i = 0; i < n->num_inputs(); ++i) {
        if (n->input(i) != nullptr && n->input(i)->name() == "omitted") n->SetInput(i, nullptr);
      }
    }
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> RandomModel::Parse() const {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  if (!model.ok()) return model.status();
  DropOmittedInputs(**model);
  return model;
}

RandomModel MakeRandomModel(uint64_t seed) {
  Generator gen(seed);
  gen.Build();
  return {gen.text(), gen.inputs()};
}

}  // namespace anvil
