"""Write a small multilayer perceptron as an ONNX file that `cv2.dnn` can run.

The training script fits the network with numpy; this module encodes its weights
in the ONNX protobuf wire format directly, so no ONNX or protobuf package is
needed at training or run time.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_FLOAT = 1  # TensorProto.DataType.FLOAT
_ATTR_INT = 2
_ATTR_FLOAT = 1


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint((field << 3) | wire)


def _int_field(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(value)


def _bytes_field(field: int, payload: bytes) -> bytes:
    return _key(field, 2) + _varint(len(payload)) + payload


def _str_field(field: int, text: str) -> bytes:
    return _bytes_field(field, text.encode("utf-8"))


def _float_field(field: int, value: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", value)


def _tensor(name: str, array: np.ndarray) -> bytes:
    data = np.ascontiguousarray(array, dtype="<f4")
    body = b"".join(_int_field(1, int(d)) for d in data.shape)
    body += _int_field(2, _FLOAT) + _str_field(8, name) + _bytes_field(9, data.tobytes())
    return body


def _value_info(name: str, dims: Sequence[int | str]) -> bytes:
    shape = b""
    for dim in dims:
        if isinstance(dim, str):
            shape += _bytes_field(1, _str_field(2, dim))
        else:
            shape += _bytes_field(1, _int_field(1, dim))
    tensor_type = _int_field(1, _FLOAT) + _bytes_field(2, shape)
    return _str_field(1, name) + _bytes_field(2, _bytes_field(1, tensor_type))


def _attribute_int(name: str, value: int) -> bytes:
    return _str_field(1, name) + _int_field(3, value) + _int_field(20, _ATTR_INT)


def _attribute_float(name: str, value: float) -> bytes:
    return _str_field(1, name) + _float_field(2, value) + _int_field(20, _ATTR_FLOAT)


def _node(op: str, inputs: Sequence[str], outputs: Sequence[str], name: str,
          attributes: Sequence[bytes] = ()) -> bytes:
    body = b"".join(_str_field(1, i) for i in inputs)
    body += b"".join(_str_field(2, o) for o in outputs)
    body += _str_field(3, name) + _str_field(4, op)
    body += b"".join(_bytes_field(5, a) for a in attributes)
    return body


@dataclass(frozen=True)
class DenseLayer:
    """One fully connected layer: y = x @ weight + bias (weight: inputs x outputs)."""

    weight: np.ndarray
    bias: np.ndarray


def _dense_layers(trunk: Sequence[DenseLayer], heads: dict[str, DenseLayer], current: str,
                  nodes: list[bytes], initializers: list[bytes]) -> list[bytes]:
    """Append a ReLU trunk and linear heads after `current`; returns the heads' outputs."""
    gemm_attrs = [_attribute_float("alpha", 1.0), _attribute_float("beta", 1.0),
                  _attribute_int("transB", 0)]
    for index, layer in enumerate(trunk):
        w_name, b_name = f"trunk{index}_w", f"trunk{index}_b"
        initializers += [_tensor(w_name, layer.weight), _tensor(b_name, layer.bias)]
        nodes.append(_node("Gemm", [current, w_name, b_name], [f"trunk{index}_lin"],
                           f"trunk{index}_gemm", gemm_attrs))
        nodes.append(_node("Relu", [f"trunk{index}_lin"], [f"trunk{index}_out"],
                           f"trunk{index}_relu"))
        current = f"trunk{index}_out"
    outputs: list[bytes] = []
    for head_name, layer in heads.items():
        w_name, b_name = f"{head_name}_w", f"{head_name}_b"
        initializers += [_tensor(w_name, layer.weight), _tensor(b_name, layer.bias)]
        nodes.append(_node("Gemm", [current, w_name, b_name], [head_name],
                           f"{head_name}_gemm", gemm_attrs))
        outputs.append(_value_info(head_name, ["batch", int(layer.weight.shape[1])]))
    return outputs


def mlp_to_onnx(trunk: Sequence[DenseLayer], heads: dict[str, DenseLayer],
                input_name: str = "features") -> bytes:
    """Encode a ReLU trunk followed by linear heads (one ONNX output per head)."""
    nodes: list[bytes] = []
    initializers: list[bytes] = []
    current = input_name
    outputs = _dense_layers(trunk, heads, current, nodes, initializers)
    n_inputs = int(trunk[0].weight.shape[0]) if trunk else int(
        next(iter(heads.values())).weight.shape[0])
    graph = b"".join(_bytes_field(1, n) for n in nodes)
    graph += _str_field(2, "index_classifier")
    graph += b"".join(_bytes_field(5, t) for t in initializers)
    graph += _bytes_field(11, _value_info(input_name, ["batch", n_inputs]))
    graph += b"".join(_bytes_field(12, o) for o in outputs)
    opset = _str_field(1, "") + _int_field(2, 13)
    model = _int_field(1, 8) + _str_field(2, "tablectl-train") + _bytes_field(8, opset)
    model += _bytes_field(7, graph)
    return model


_ATTR_INTS = 7


def _attribute_ints(name: str, values: Sequence[int]) -> bytes:
    return (_str_field(1, name) + b"".join(_int_field(8, v) for v in values)
            + _int_field(20, _ATTR_INTS))


@dataclass(frozen=True)
class ConvLayer:
    """A 3x3 (or k x k) convolution, same padding, then ReLU and a 2x2 max pool.

    weight: (out_channels, in_channels, k, k), bias: (out_channels,).
    """

    weight: np.ndarray
    bias: np.ndarray


def cnn_to_onnx(convs: Sequence[ConvLayer], trunk: Sequence[DenseLayer],
                heads: dict[str, DenseLayer], input_shape: Sequence[int],
                input_name: str = "crops", embedding: str | None = None) -> bytes:
    """Encode conv-ReLU-maxpool blocks, a flatten, a ReLU dense trunk and linear heads.

    `input_shape` is (channels, height, width) of one input (NCHW); the flatten
    keeps channel, row, column order, as PyTorch's does. With `embedding`, the
    trunk's last output is an output of the model too, under that name.
    """
    nodes: list[bytes] = []
    initializers: list[bytes] = []
    current = input_name
    for index, conv in enumerate(convs):
        k = int(conv.weight.shape[2])
        w_name, b_name = f"conv{index}_w", f"conv{index}_b"
        initializers += [_tensor(w_name, conv.weight), _tensor(b_name, conv.bias)]
        nodes.append(_node("Conv", [current, w_name, b_name], [f"conv{index}_lin"],
                           f"conv{index}", [_attribute_ints("kernel_shape", [k, k]),
                                            _attribute_ints("pads", [k // 2] * 4),
                                            _attribute_ints("strides", [1, 1])]))
        nodes.append(_node("Relu", [f"conv{index}_lin"], [f"conv{index}_relu"],
                           f"conv{index}_relu"))
        nodes.append(_node("MaxPool", [f"conv{index}_relu"], [f"conv{index}_out"],
                           f"conv{index}_pool", [_attribute_ints("kernel_shape", [2, 2]),
                                                 _attribute_ints("strides", [2, 2])]))
        current = f"conv{index}_out"
    nodes.append(_node("Flatten", [current], ["flat"], "flatten", [_attribute_int("axis", 1)]))
    current = "flat"
    outputs = _dense_layers(trunk, heads, current, nodes, initializers)
    if embedding is not None and trunk:
        last = f"trunk{len(trunk) - 1}_out"
        nodes.append(_node("Identity", [last], [embedding], f"{embedding}_identity"))
        outputs.append(_value_info(embedding, ["batch", int(trunk[-1].weight.shape[1])]))
    graph = b"".join(_bytes_field(1, n) for n in nodes)
    graph += _str_field(2, "index_verifier")
    graph += b"".join(_bytes_field(5, t) for t in initializers)
    graph += _bytes_field(11, _value_info(input_name, ["batch", *[int(d) for d in input_shape]]))
    graph += b"".join(_bytes_field(12, o) for o in outputs)
    opset = _str_field(1, "") + _int_field(2, 13)
    model = _int_field(1, 8) + _str_field(2, "tablectl-train") + _bytes_field(8, opset)
    model += _bytes_field(7, graph)
    return model
