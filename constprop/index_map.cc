#include "constprop/index_map.h"

#include <algorithm>
#include <utility>

namespace anvil {

IndexMap IndexMap::RowMajor(absl::Span<const int64_t> dims) {
  IndexMap map;
  map.dims.assign(dims.begin(), dims.end());
  map.strides.resize(dims.size());
  int64_t s = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    map.strides[k] = s;
    s *= dims[k];
  }
  return map;
}

bool IndexMap::IsRowMajorIdentity() const {
  if (has_tables() || offset != 0) return false;
  int64_t s = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    if (dims[k] != 1 && strides[k] != s) return false;
    s *= dims[k];
  }
  return true;
}

bool IndexMap::IsSplat() const {
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] != 1 && (gathered(k) || strides[k] != 0)) return false;
  }
  return true;
}

IndexMap IndexMap::Transpose(absl::Span<const int64_t> perm) const {
  IndexMap out;
  out.offset = offset;
  for (int64_t p : perm) {
    out.dims.push_back(dims[p]);
    out.strides.push_back(strides[p]);
    if (has_tables()) out.tables.push_back(tables[p]);
  }
  return out;
}

IndexMap IndexMap::BroadcastTo(absl::Span<const int64_t> target) const {
  IndexMap out;
  out.offset = offset;
  out.dims.assign(target.begin(), target.end());
  out.strides.assign(target.size(), 0);
  const size_t lead = target.size() - dims.size();
  if (has_tables()) out.tables.assign(target.size(), nullptr);
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == target[lead + k]) {
      out.strides[lead + k] = strides[k];
      if (has_tables()) out.tables[lead + k] = tables[k];
    } else {
      out.offset += Term(k, 0);  // a dim of 1 repeated: its one term everywhere
    }
  }
  return out;
}

IndexMap IndexMap::Slice(absl::Span<const int64_t> starts, absl::Span<const int64_t> steps,
                         absl::Span<const int64_t> out_dims) const {
  IndexMap out;
  out.offset = offset;
  out.dims.assign(out_dims.begin(), out_dims.end());
  out.strides.resize(dims.size());
  if (has_tables()) out.tables.resize(dims.size());
  for (size_t k = 0; k < dims.size(); ++k) {
    if (!gathered(k)) {
      if (out_dims[k] > 0) out.offset += starts[k] * strides[k];
      out.strides[k] = strides[k] * steps[k];
      continue;
    }
    auto table = std::make_shared<std::vector<int64_t>>(out_dims[k]);
    for (int64_t i = 0; i < out_dims[k]; ++i) (*table)[i] = (*tables[k])[starts[k] + i * steps[k]];
    out.tables[k] = std::move(table);
  }
  return out;
}

IndexMap IndexMap::Gather(int64_t axis, absl::Span<const int64_t> indices) const {
  IndexMap out = *this;
  const int64_t n = static_cast<int64_t>(indices.size());
  out.dims[axis] = n;
  if (!gathered(axis) && strides[axis] == 0) return out;  // a broadcast dim stays one
  // Evenly stepping indices over a strided dim stay a stride (a slice, or a repeat with step 0).
  bool even = !gathered(axis);
  for (int64_t j = 2; j < n && even; ++j) {
    even = indices[j] - indices[j - 1] == indices[1] - indices[0];
  }
  if (even) {
    if (n > 0) out.offset += strides[axis] * indices[0];
    out.strides[axis] = n > 1 ? strides[axis] * (indices[1] - indices[0]) : 0;
    return out;
  }
  auto table = std::make_shared<std::vector<int64_t>>(n);
  for (int64_t j = 0; j < n; ++j) (*table)[j] = Term(axis, indices[j]);
  if (!out.has_tables()) out.tables.assign(dims.size(), nullptr);
  out.tables[axis] = std::move(table);
  out.strides[axis] = 0;
  return out;
}

std::optional<IndexMap> IndexMap::Reshape(absl::Span<const int64_t> new_dims) const {
  IndexMap out;
  out.dims.assign(new_dims.begin(), new_dims.end());
  out.strides.assign(new_dims.size(), 0);
  out.offset = offset;
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count == 0) return out;  // nothing is ever read
  // Dims of 1 place nothing but their one term; drop them.
  std::vector<int64_t> od, os;
  std::vector<Table> ot;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 1) {
      out.offset += Term(k, 0);
      continue;
    }
    od.push_back(dims[k]);
    os.push_back(strides[k]);
    ot.push_back(gathered(k) ? tables[k] : nullptr);
  }
  // Match runs of old and new dims with equal products. Within a run of strided dims, the old
  // dims must be laid out as one block (each stride the next one times its dim); a gathered dim
  // must be a run of its own, on both sides.
  size_t oi = 0, ni = 0;
  while (oi < od.size() && ni < new_dims.size()) {
    if (new_dims[ni] == 1) {  // placed nowhere: stride 0
      ++ni;
      continue;
    }
    size_t oj = oi + 1, nj = ni + 1;
    int64_t op = od[oi], np = new_dims[ni];
    while (op != np) {
      if (np < op) {
        np *= new_dims[nj++];
      } else {
        op *= od[oj++];
      }
    }
    bool gathered_run = false;
    for (size_t k = oi; k < oj; ++k) gathered_run |= ot[k] != nullptr;
    if (gathered_run) {
      if (oj - oi != 1 || nj - ni != 1) return std::nullopt;
      if (out.tables.empty()) out.tables.assign(new_dims.size(), nullptr);
      out.tables[ni] = ot[oi];
    } else {
      for (size_t k = oi; k + 1 < oj; ++k) {
        if (os[k] != os[k + 1] * od[k + 1]) return std::nullopt;
      }
      out.strides[nj - 1] = os[oj - 1];
      for (size_t k = nj - 1; k > ni; --k) out.strides[k - 1] = out.strides[k] * new_dims[k];
    }
    oi = oj;
    ni = nj;
  }
  // Trailing new dims are 1 (stride 0).
  return out;
}

void IndexMap::BlockTargets(int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t* out) const {
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t ncols = c1 - c0;
  if (rank == 0) {
    for (int64_t r = r0; r < r1; ++r) *out++ = offset;
    return;
  }
  // The multi-index of row r0 over the outer dims, then an odometer.
  const int64_t outer = rank - 1;
  std::vector<int64_t> index(outer, 0);
  int64_t base = offset;
  for (int64_t k = outer - 1, r = r0; k >= 0; --k) {
    index[k] = r % dims[k];
    r /= dims[k];
    base += Term(k, index[k]);
  }
  const int64_t last = rank - 1;
  const bool gathered_last = gathered(last);
  const int64_t* table = gathered_last ? tables[last]->data() : nullptr;
  const int64_t stride = strides[last];
  for (int64_t r = r0; r < r1; ++r) {
    if (gathered_last) {
      for (int64_t c = 0; c < ncols; ++c) out[c] = base + table[c0 + c];
    } else {
      int64_t t = base + c0 * stride;
      for (int64_t c = 0; c < ncols; ++c, t += stride) out[c] = t;
    }
    out += ncols;
    for (int64_t k = outer - 1; k >= 0; --k) {
      const int64_t before = Term(k, index[k]);
      if (++index[k] < dims[k]) {
        base += Term(k, index[k]) - before;
        break;
      }
      index[k] = 0;
      base += Term(k, 0) - before;
    }
  }
}

void IndexMap::MapFlat(int64_t* flat, int64_t n) const {
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (rank == 0) {
    std::fill_n(flat, n, offset);
    return;
  }
  if (IsRowMajorIdentity()) return;
  const int64_t last = rank - 1;
  const int64_t last_dim = dims[last];
  int64_t prev = -2, prev_target = 0, col = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t f = flat[i];
    if (f == prev + 1 && col + 1 < last_dim) {
      // The next element along the last dim.
      ++col;
      prev_target += Term(last, col) - Term(last, col - 1);
    } else {
      int64_t rest = f, target = offset;
      for (int64_t k = last; k >= 0; --k) {
        const int64_t index = rest % dims[k];
        rest /= dims[k];
        if (k == last) col = index;
        target += Term(k, index);
      }
      prev_target = target;
    }
    prev = f;
    flat[i] = prev_target;
  }
}

}  // namespace anvil
