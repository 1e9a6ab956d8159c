#!/usr/bin/python3
"""Writes the model zoo in testdata/zoo/: public architectures at their real sizes.

    /usr/bin/python3 testdata/generate_zoo.py [OUT_DIR]

The networks the speed work is measured on, built op by op as PyTorch/TensorFlow exporters write
them, with a symbolic batch dim `N` and deterministic weights (numpy's generator seeded from each
model's name, He-style scales and batch-norm statistics near identity, so activations stay in a
sane range and regenerating gives identical files). Every model passes onnx.checker's full check
and strict shape inference.

  mobilenetv2.onnx       x[N,3,224,224] -> MobileNetV2 (width 1.0): Conv + BatchNormalization +
                         ReLU6 (Clip(0, 6)), 17 inverted residuals (1x1 expand, depthwise 3x3
                         stride 1 or 2, 1x1 project, residual Add), 1x1 Conv to 1280,
                         GlobalAveragePool, Flatten, Gemm -> y[N,1000]                (opset 17)
  mobilenetv3_small.onnx x[N,3,224,224] -> MobileNetV3-small, batch norm folded into the Convs:
                         HardSwish (the op), depthwise 3x3 and 5x5, squeeze-excitation
                         (GlobalAveragePool, Conv, Relu, Conv, HardSigmoid, Mul), classifier
                         Gemm + HardSwish + Gemm -> y[N,1000]                         (opset 17)
  resnet18.onnx          x[N,3,224,224] -> ResNet-18: Conv 7x7 + BatchNormalization + Relu,
                         MaxPool, 8 basic blocks with residual Adds (1x1 stride-2 downsample
                         Convs), GlobalAveragePool, Flatten, Gemm -> y[N,1000]       (opset 17)
  blazeface.onnx         x[N,128,128,3] (NHWC) -> Transpose -> BlazeFace (front): 5x5 depthwise
                         + 1x1 pointwise blocks, stride 2 by an explicit Pad and MaxPool on the
                         shortcut, channels grown on the shortcut by Pad; heads at 16x16 and
                         8x8: Conv, Transpose, Reshape (shape from Shape/Gather/Concat),
                         Concat -> regressors[N,896,16], classificators[N,896,1]    (opset 17)
  unet.onnx              x[N,3,128,128] -> a small UNet: Conv + Relu encoder with MaxPool,
                         decoder upsampling by ConvTranspose and by Resize (linear) + 1x1 Conv,
                         Concat skip connections, 1x1 head + Sigmoid -> y[N,1,128,128] (opset 17)
  yolo_head.onnx         x[N,3,160,160] -> a YOLOv5-style detector: Conv + SiLU (x * Sigmoid(x))
                         backbone to stride 32, a neck (Resize nearest, Concat), 1x1 heads at
                         strides 8/16/32 with Reshape, Transpose, Sigmoid, Split and the box
                         decode (grid and anchor constants, Mul, Add, Pow), Concat over the
                         scales -> y[N,1575,85]                                       (opset 17)
  audio_frontend.onnx    x[N,1,16000] (1 s of 16 kHz audio) -> reflect Pad -> STFT as two Conv1D
                         (real and imaginary Hann-windowed DFT bases, 512 taps, stride 160, 257
                         channels each) -> power (Mul, Add) -> Transpose -> MatMul with an 80-band
                         mel filterbank -> Log(x + 1e-6) -> Whisper-style normalization
                         (ReduceMax, Max, Add, Div) -> y[N,101,80]                   (opset 17)
  mobilenetv2_fp16.onnx  mobilenetv2 in float16 end to end (input, initializers, output)
  unet_fp16.onnx         unet computed in float16, float32 input and output with Casts at the
                         edges (converters' keep_io_types); Resize's scales stay float32
"""
import os
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True  # no __pycache__ next to the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_models import OPSET, const  # noqa: E402

ELEM = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16}


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="anvil-testdata")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    onnx.save(model, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


class Net:
    """Nodes and initializers of one graph, with weights drawn from a generator seeded by the
    model's name and stored in `dtype` (float32 or float16)."""

    def __init__(self, name, dtype=np.float32):
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.dtype = dtype
        self.elem = ELEM[dtype]
        self.nodes, self.inits = [], []
        self.count = 0
        self.scalars = {}

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def node(self, op, inputs, prefix=None, **attrs):
        y = self.fresh(prefix or op.lower())
        self.nodes.append(helper.make_node(op, inputs, [y], **attrs))
        return y

    def tensor(self, name, values):
        self.inits.append(numpy_helper.from_array(np.asarray(values).astype(self.dtype), name))
        return name

    def tensor_i64(self, values):
        name = self.fresh("i")
        self.inits.append(const(name, values))
        return name

    def tensor_f32(self, values):  # float32 whatever the dtype (Resize's scales, say)
        name = self.fresh("f")
        self.inits.append(const(name, values, np.float32))
        return name

    def scalar(self, value):
        if value not in self.scalars:
            self.scalars[value] = self.tensor(f"k{len(self.scalars)}", np.array(value))
        return self.scalars[value]

    def weight(self, name, shape, gain=2.0):
        # He-style: variance gain / fan_in (gain 2 ahead of a Relu, 1 ahead of nothing).
        fan_in = int(np.prod(shape[1:]))
        return self.tensor(name, self.rng.standard_normal(shape) * np.sqrt(gain / fan_in))

    def bias(self, name, c, scale=0.05):
        return self.tensor(name, self.rng.standard_normal(c) * scale)

    def conv(self, x, cin, cout, k, stride=1, group=1, pads=None, bias=True, gain=2.0,
             dims=2):
        i = self.fresh("conv")
        kernel = [k] * dims
        inputs = [x, self.weight(f"{i}_w", [cout, cin // group] + kernel, gain)]
        if bias:
            inputs.append(self.bias(f"{i}_b", cout))
        pads = pads if pads is not None else [k // 2] * (2 * dims)
        self.nodes.append(helper.make_node("Conv", inputs, [i], kernel_shape=kernel,
                                           strides=[stride] * dims, pads=pads, group=group))
        return i

    def bn(self, x, c, gamma=1.0):
        i = self.fresh("bn")
        r = self.rng
        names = [self.tensor(f"{i}_scale", gamma * (1 + 0.1 * r.standard_normal(c))),
                 self.tensor(f"{i}_bias", 0.05 * r.standard_normal(c)),
                 self.tensor(f"{i}_mean", 0.05 * r.standard_normal(c)),
                 self.tensor(f"{i}_var", 1 + 0.1 * np.abs(r.standard_normal(c)))]
        self.nodes.append(helper.make_node("BatchNormalization", [x] + names, [i], epsilon=1e-5))
        return i

    def conv_bn(self, x, cin, cout, k, stride=1, group=1, gamma=1.0, gain=2.0):
        return self.bn(self.conv(x, cin, cout, k, stride, group, bias=False, gain=gain), cout,
                       gamma)

    def relu(self, x):
        return self.node("Relu", [x])

    def relu6(self, x):  # as PyTorch exports nn.ReLU6
        return self.node("Clip", [x, self.scalar(0.0), self.scalar(6.0)])

    def hardswish(self, x):
        return self.node("HardSwish", [x])

    def silu(self, x):  # as PyTorch exports nn.SiLU
        return self.node("Mul", [x, self.node("Sigmoid", [x])])

    def add(self, a, b):
        return self.node("Add", [a, b])

    def gemm(self, x, cin, cout, gain=1.0):
        i = self.fresh("fc")
        inputs = [x, self.weight(f"{i}_w", [cout, cin], gain), self.bias(f"{i}_b", cout)]
        self.nodes.append(helper.make_node("Gemm", inputs, [i], transB=1))
        return i

    def classifier(self, x, cin, classes=1000, y="y"):
        flat = self.node("Flatten", [self.node("GlobalAveragePool", [x])], axis=1)
        self.nodes.append(helper.make_node(
            "Gemm", [flat, self.weight("fc_w", [classes, cin], 1.0),
                     self.bias("fc_b", classes)], [y], transB=1))

    def output(self, x, y):
        self.nodes.append(helper.make_node("Identity", [x], [y]))

    def graph(self, name, inputs, outputs):
        return helper.make_graph(self.nodes, name, inputs, outputs, self.inits)


def value(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def mobilenetv2(path, dtype=np.float32, name="mobilenetv2"):
    # Weights from the float32 model's stream, so the float16 model is its rounding.
    net = Net("mobilenetv2", dtype)
    x = net.relu6(net.conv_bn("x", 3, 32, 3, 2))                               # 112
    cin = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for j in range(n):
            stride = s if j == 0 else 1
            hidden = cin * t
            h = x
            if t != 1:
                h = net.relu6(net.conv_bn(h, cin, hidden, 1))
            h = net.relu6(net.conv_bn(h, hidden, hidden, 3, stride, group=hidden))
            # The residual branch's last batch norm scaled down, as trained networks settle.
            residual = stride == 1 and cin == c
            h = net.conv_bn(h, hidden, c, 1, gamma=0.5 if residual else 1.0, gain=1.0)
            x = net.add(x, h) if residual else h
            cin = c
    x = net.relu6(net.conv_bn(x, cin, 1280, 1))                                # 7x7
    net.classifier(x, 1280)
    elem = ELEM[dtype]
    save(net.graph(name, [value("x", elem, ["N", 3, 224, 224])], [value("y", elem, ["N", 1000])]),
         path)


def mobilenetv3_small(path):
    net = Net("mobilenetv3_small")

    def se(x, c):
        mid = make_divisible(c // 4)
        s = net.node("GlobalAveragePool", [x])
        s = net.relu(net.conv(s, c, mid, 1))
        s = net.node("HardSigmoid", [net.conv(s, mid, c, 1, gain=1.0)], alpha=1.0 / 6, beta=0.5)
        return net.node("Mul", [x, s])

    x = net.hardswish(net.conv("x", 3, 16, 3, 2))                               # 112
    cin = 16
    for k, exp, c, use_se, act, s in [
            (3, 16, 16, True, "RE", 2), (3, 72, 24, False, "RE", 2), (3, 88, 24, False, "RE", 1),
            (5, 96, 40, True, "HS", 2), (5, 240, 40, True, "HS", 1), (5, 240, 40, True, "HS", 1),
            (5, 120, 48, True, "HS", 1), (5, 144, 48, True, "HS", 1), (5, 288, 96, True, "HS", 2),
            (5, 576, 96, True, "HS", 1), (5, 576, 96, True, "HS", 1)]:
        f = net.relu if act == "RE" else net.hardswish
        h = x
        if exp != cin:
            h = f(net.conv(h, cin, exp, 1))
        h = f(net.conv(h, exp, exp, k, s, group=exp))
        if use_se:
            h = se(h, exp)
        residual = s == 1 and cin == c
        h = net.conv(h, exp, c, 1, gain=0.25 if residual else 1.0)
        x = net.add(x, h) if residual else h
        cin = c
    x = net.hardswish(net.conv(x, cin, 576, 1))                                 # 7x7
    flat = net.node("Flatten", [net.node("GlobalAveragePool", [x])], axis=1)
    h = net.hardswish(net.gemm(flat, 576, 1024, gain=2.0))
    net.nodes.append(helper.make_node(
        "Gemm", [h, net.weight("fc_w", [1000, 1024], 1.0), net.bias("fc_b", 1000)], ["y"],
        transB=1))
    save(net.graph("mobilenetv3_small", [value("x", TensorProto.FLOAT, ["N", 3, 224, 224])],
                   [value("y", TensorProto.FLOAT, ["N", 1000])]), path)


def resnet18(path):
    net = Net("resnet18")
    x = net.relu(net.conv_bn("x", 3, 64, 7, 2))                                # 112
    x = net.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])  # 56
    cin = 64
    for c, s in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        for j in range(2):
            stride = s if j == 0 else 1
            h = net.relu(net.conv_bn(x, cin, c, 3, stride))
            h = net.conv_bn(h, c, c, 3, gamma=0.5, gain=1.0)
            shortcut = x if stride == 1 and cin == c else net.conv_bn(x, cin, c, 1, stride,
                                                                     gain=1.0)
            x = net.relu(net.add(h, shortcut))
            cin = c
    net.classifier(x, 512)
    save(net.graph("resnet18", [value("x", TensorProto.FLOAT, ["N", 3, 224, 224])],
                   [value("y", TensorProto.FLOAT, ["N", 1000])]), path)


def blazeface(path):
    net = Net("blazeface")
    x = net.node("Transpose", ["x"], perm=[0, 3, 1, 2])                        # NCHW 128
    # TensorFlow's SAME padding for 5x5 stride 2 on an even size: 1 before, 2 after.
    x = net.relu(net.conv(x, 3, 24, 5, 2, pads=[1, 1, 2, 2]))                  # 64

    def block(x, cin, cout, stride):
        h = x
        if stride == 2:
            # TensorFlow's SAME padding for 5x5 stride 2 as an explicit Pad: 1 before, 2 after.
            h = net.node("Pad", [h, net.tensor_i64([0, 0, 1, 1, 0, 0, 2, 2])], mode="constant")
            x = net.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
        h = net.conv(h, cin, cin, 5, stride, group=cin, pads=[0] * 4 if stride == 2 else None,
                     gain=1.0)
        h = net.conv(h, cin, cout, 1, gain=0.5)
        if cout > cin:
            x = net.node("Pad", [x, net.tensor_i64([0, 0, 0, 0, 0, cout - cin, 0, 0])],
                         mode="constant")
        return net.relu(net.add(h, x))

    chans = [(24, 24, 1), (24, 28, 1), (28, 32, 2), (32, 36, 1), (36, 42, 1), (42, 48, 2),
             (48, 56, 1), (56, 64, 1), (64, 72, 1), (72, 80, 1), (80, 88, 1)]   # 16x16 at the end
    for cin, cout, s in chans:
        x = block(x, cin, cout, s)
    x16 = x
    for cin, cout, s in [(88, 96, 2), (96, 96, 1), (96, 96, 1), (96, 96, 1), (96, 96, 1)]:
        x = block(x, cin, cout, s)
    x8 = x

    # Output heads: Conv, NCHW -> NHWC, then [N, boxes, k] with N taken from the input's shape.
    batch = net.node("Gather", [net.node("Shape", ["x"]), net.tensor_i64([0])], axis=0)

    def head(feat, cin, anchors, k):
        h = net.conv(feat, cin, anchors * k, 1, pads=[0] * 4, gain=1.0)
        h = net.node("Transpose", [h], perm=[0, 2, 3, 1])
        shape = net.node("Concat", [batch, net.tensor_i64([-1, k])], axis=0)
        return net.node("Reshape", [h, shape])

    net.nodes.append(helper.make_node(
        "Concat", [head(x16, 88, 2, 16), head(x8, 96, 6, 16)], ["regressors"], axis=1))
    net.nodes.append(helper.make_node(
        "Concat", [head(x16, 88, 2, 1), head(x8, 96, 6, 1)], ["classificators"], axis=1))
    save(net.graph("blazeface", [value("x", TensorProto.FLOAT, ["N", 128, 128, 3])],
                   [value("regressors", TensorProto.FLOAT, ["N", 896, 16]),
                    value("classificators", TensorProto.FLOAT, ["N", 896, 1])]), path)



def unet(path, dtype=np.float32, name="unet"):
    net = Net("unet", dtype)
    x = "x"
    if dtype != np.float32:  # keep_io_types: float32 at the edges, float16 inside
        x = net.node("Cast", [x], to=net.elem)

    def double_conv(x, cin, cout):
        return net.relu(net.conv(net.relu(net.conv(x, cin, cout, 3)), cout, cout, 3))

    def pool(x):
        return net.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])

    e1 = double_conv(x, 3, 16)                                                 # 128
    e2 = double_conv(pool(e1), 16, 32)                                         # 64
    e3 = double_conv(pool(e2), 32, 64)                                         # 32
    b = double_conv(pool(e3), 64, 128)                                         # 16
    # Up by ConvTranspose 2x2 stride 2.
    i = net.fresh("up")
    u3 = net.node("ConvTranspose", [b, net.weight(f"{i}_w", [128, 64, 2, 2], 4.0),
                                    net.bias(f"{i}_b", 64)], kernel_shape=[2, 2], strides=[2, 2])
    d3 = double_conv(net.node("Concat", [u3, e3], axis=1), 128, 64)            # 32
    # Up by Resize (bilinear) then a 1x1 Conv.
    scales = net.tensor_f32([1.0, 1.0, 2.0, 2.0])
    u2 = net.node("Resize", [d3, "", scales], mode="linear",
                  coordinate_transformation_mode="half_pixel")
    u2 = net.conv(u2, 64, 32, 1, gain=1.0)
    d2 = double_conv(net.node("Concat", [u2, e2], axis=1), 64, 32)             # 64
    i = net.fresh("up")
    u1 = net.node("ConvTranspose", [d2, net.weight(f"{i}_w", [32, 16, 2, 2], 4.0),
                                    net.bias(f"{i}_b", 16)], kernel_shape=[2, 2], strides=[2, 2])
    d1 = double_conv(net.node("Concat", [u1, e1], axis=1), 32, 16)             # 128
    y = net.node("Sigmoid", [net.conv(d1, 16, 1, 1, pads=[0] * 4, gain=1.0)])
    if dtype != np.float32:
        y = net.node("Cast", [y], to=TensorProto.FLOAT)
    net.output(y, "y")
    save(net.graph(name, [value("x", TensorProto.FLOAT, ["N", 3, 128, 128])],
                   [value("y", TensorProto.FLOAT, ["N", 1, 128, 128])]), path)


def yolo_head(path):
    net = Net("yolo_head")
    classes, na = 80, 3
    no = classes + 5

    def cbs(x, cin, cout, k, s=1):  # Conv (batch norm folded) + SiLU
        return net.silu(net.conv(x, cin, cout, k, s))

    x = cbs("x", 3, 16, 3, 2)                                                  # 80
    x = cbs(x, 16, 32, 3, 2)                                                   # 40
    x = cbs(x, 32, 32, 3)
    p3 = cbs(x, 32, 64, 3, 2)                                                  # 20
    p4 = cbs(cbs(p3, 64, 128, 3, 2), 128, 128, 3)                              # 10
    p5 = cbs(cbs(p4, 128, 256, 3, 2), 256, 256, 1)                             # 5
    # Neck: upsample P5 (nearest) onto P4.
    up = net.node("Resize", [cbs(p5, 256, 128, 1), "", net.tensor_f32([1.0, 1.0, 2.0, 2.0])],
                  mode="nearest")
    p4 = cbs(net.node("Concat", [up, p4], axis=1), 256, 128, 3)

    anchors = [[(10, 13), (16, 30), (33, 23)], [(30, 61), (62, 45), (59, 119)],
               [(116, 90), (156, 198), (373, 326)]]
    outs = []
    for level, (feat, cin, size, stride) in enumerate([(p3, 64, 20, 8), (p4, 128, 10, 16),
                                                       (p5, 256, 5, 32)]):
        h = net.conv(feat, cin, na * no, 1, pads=[0] * 4, gain=1.0)
        h = net.node("Reshape", [h, net.tensor_i64([-1, na, no, size, size])])
        h = net.node("Sigmoid", [net.node("Transpose", [h], perm=[0, 1, 3, 4, 2])])
        i = net.fresh("split")
        xy, wh, conf = f"{i}_xy", f"{i}_wh", f"{i}_conf"
        net.nodes.append(helper.make_node("Split", [h, net.tensor_i64([2, 2, no - 4])],
                                          [xy, wh, conf], axis=4))
        gy, gx = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
        grid = (np.stack([gx, gy], -1).reshape(1, 1, size, size, 2) - 0.5) * stride
        anchor = np.array(anchors[level], np.float32).reshape(1, na, 1, 1, 2)
        two, stride_2 = net.tensor_f32(2.0), net.tensor_f32(2.0 * stride)
        xy = net.add(net.node("Mul", [xy, stride_2]), net.tensor_f32(grid))
        wh = net.node("Mul", [net.node("Pow", [net.node("Mul", [wh, two]), two]),
                              net.tensor_f32(anchor)])
        h = net.node("Concat", [xy, wh, conf], axis=4)
        outs.append(net.node("Reshape", [h, net.tensor_i64([-1, na * size * size, no])]))
    net.nodes.append(helper.make_node("Concat", outs, ["y"], axis=1))
    save(net.graph("yolo_head", [value("x", TensorProto.FLOAT, ["N", 3, 160, 160])],
                   [value("y", TensorProto.FLOAT, ["N", na * (400 + 100 + 25), no])]), path)


def mel_filterbank(sr, n_fft, n_mels):
    """Slaney-style triangular mel filters (as librosa's default), [n_fft / 2 + 1, n_mels]."""
    def hz_to_mel(f):
        f = np.asarray(f, np.float64)
        lin = f / (200.0 / 3)
        log = 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
        return np.where(f >= 1000.0, log, lin)

    def mel_to_hz(m):
        lin = m * (200.0 / 3)
        log = 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0))
        return np.where(m >= 15.0, log, lin)

    bins = np.linspace(0, sr / 2, n_fft // 2 + 1)
    edges = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2))
    fb = np.zeros((n_fft // 2 + 1, n_mels))
    for m in range(n_mels):
        lo, mid, hi = edges[m], edges[m + 1], edges[m + 2]
        up = (bins - lo) / (mid - lo)
        down = (hi - bins) / (hi - mid)
        fb[:, m] = np.maximum(0, np.minimum(up, down)) * 2.0 / (hi - lo)   # Slaney area norm
    return fb.astype(np.float32)


def audio_frontend(path):
    net = Net("audio_frontend")
    n_fft, hop, n_mels, sr = 512, 160, 80, 16000
    bins = n_fft // 2 + 1
    # torch.stft(center=True): reflect-pad n_fft / 2 on both sides.
    x = net.node("Pad", ["x", net.tensor_i64([0, 0, n_fft // 2, 0, 0, n_fft // 2])],
                 mode="reflect")
    n = np.arange(n_fft)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * n / n_fft)                         # periodic Hann
    angle = 2 * np.pi * np.outer(np.arange(bins), n) / n_fft
    real = net.tensor("dft_real", (np.cos(angle) * window).reshape(bins, 1, n_fft))
    imag = net.tensor("dft_imag", (-np.sin(angle) * window).reshape(bins, 1, n_fft))
    re = net.node("Conv", [x, real], kernel_shape=[n_fft], strides=[hop])       # [N,257,101]
    im = net.node("Conv", [x, imag], kernel_shape=[n_fft], strides=[hop])
    power = net.add(net.node("Mul", [re, re]), net.node("Mul", [im, im]))
    frames = net.node("Transpose", [power], perm=[0, 2, 1])                    # [N,101,257]
    mel = net.node("MatMul", [frames, net.tensor("mel_fb", mel_filterbank(sr, n_fft, n_mels))])
    logmel = net.node("Log", [net.add(mel, net.scalar(1e-6))])
    # Whisper's normalization: clamp to 8 below the maximum, then (x + 4) / 4.
    peak = net.node("ReduceMax", [logmel], axes=[1, 2], keepdims=1)
    floor = net.node("Sub", [peak, net.scalar(8.0)])
    clamped = net.node("Max", [logmel, floor])
    net.nodes.append(helper.make_node(
        "Div", [net.add(clamped, net.scalar(4.0)), net.scalar(4.0)], ["y"]))
    frames_out = 16000 // hop + 1
    save(net.graph("audio_frontend", [value("x", TensorProto.FLOAT, ["N", 1, 16000])],
                   [value("y", TensorProto.FLOAT, ["N", frames_out, n_mels])]), path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "zoo")
    os.makedirs(out, exist_ok=True)
    mobilenetv2(os.path.join(out, "mobilenetv2.onnx"))
    mobilenetv3_small(os.path.join(out, "mobilenetv3_small.onnx"))
    resnet18(os.path.join(out, "resnet18.onnx"))
    blazeface(os.path.join(out, "blazeface.onnx"))
    unet(os.path.join(out, "unet.onnx"))
    yolo_head(os.path.join(out, "yolo_head.onnx"))
    audio_frontend(os.path.join(out, "audio_frontend.onnx"))
    mobilenetv2(os.path.join(out, "mobilenetv2_fp16.onnx"), np.float16, "mobilenetv2_fp16")
    unet(os.path.join(out, "unet_fp16.onnx"), np.float16, "unet_fp16")


if __name__ == "__main__":
    main()
