// Turns @upscalerjs/esrgan-slim's Keras layers model (its JSON topology and float32 weights, as the package ships
// them) into an ONNX graph, so onnxruntime-node's CPU kernels run the very same weights. No converter for TensorFlow.js
// layers models installs offline (tf2onnx is Python), and this one has six layer kinds, so the graph is built here.
// The graph takes and gives RGB bytes (NHWC, uint8): the casts, the layout changes and the round-and-clip the worker
// did in TensorFlow.js are part of it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';

const require = createRequire(import.meta.url);

export interface LayersModelJson {
  modelTopology: { model_config: { config: { layers: KerasLayer[]; input_layers: [string, number, number][]; output_layers: [string, number, number][] } } };
  weightsManifest: { paths: string[]; weights: { name: string; shape: number[]; dtype: string }[] }[];
}

export interface KerasLayer {
  class_name: string;
  name: string;
  config: Record<string, unknown>;
  inbound_nodes: [string, number, number, unknown][][];
}

/** The package's folder: its exports map hides package.json, so walk up from its main file. */
function packageRoot(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (!fs.existsSync(path.join(dir, 'package.json')) || JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name !== name) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of ${name}`);
    dir = up;
  }
  return dir;
}

/** The model esrgan-slim ships for a factor (2, 3, 4 or 8), read from disk: its JSON and its weight shards joined. */
export function readEsrganSlim(scale: number): { model: LayersModelJson; weights: Uint8Array } {
  const dir = path.join(packageRoot('@upscalerjs/esrgan-slim'), 'models', `x${scale}`);
  const model = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8')) as LayersModelJson;
  const weights = Buffer.concat(model.weightsManifest.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))));
  return { model, weights: new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength) };
}

// The part of onnx.proto this graph needs (field numbers as in onnx/onnx.proto, ONNX IR 8).
const onnx = protobuf.Root.fromJSON({
  nested: {
    ModelProto: {
      fields: {
        irVersion: { type: 'int64', id: 1 },
        producerName: { type: 'string', id: 2 },
        graph: { type: 'GraphProto', id: 7 },
        opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
      },
    },
    OperatorSetIdProto: { fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } } },
    GraphProto: {
      fields: {
        node: { rule: 'repeated', type: 'NodeProto', id: 1 },
        name: { type: 'string', id: 2 },
        initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
        input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
        output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
      },
    },
    NodeProto: {
      fields: {
        input: { rule: 'repeated', type: 'string', id: 1 },
        output: { rule: 'repeated', type: 'string', id: 2 },
        name: { type: 'string', id: 3 },
        opType: { type: 'string', id: 4 },
        attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
      },
    },
    AttributeProto: {
      fields: {
        name: { type: 'string', id: 1 },
        i: { type: 'int64', id: 3 },
        s: { type: 'bytes', id: 4 },
        ints: { rule: 'repeated', type: 'int64', id: 8 },
        type: { type: 'int32', id: 20 },
      },
    },
    TensorProto: {
      fields: {
        dims: { rule: 'repeated', type: 'int64', id: 1 },
        dataType: { type: 'int32', id: 2 },
        name: { type: 'string', id: 8 },
        rawData: { type: 'bytes', id: 9 },
      },
    },
    ValueInfoProto: { fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } } },
    TypeProto: {
      fields: { tensorType: { type: 'Tensor', id: 1 } },
      nested: { Tensor: { fields: { elemType: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } } } },
    },
    TensorShapeProto: {
      fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } },
      nested: { Dimension: { fields: { dimValue: { type: 'int64', id: 1 }, dimParam: { type: 'string', id: 2 } } } },
    },
  },
});

const FLOAT = 1;
const UINT8 = 2;
const ATTR_INT = 2;
const ATTR_STRING = 3;
const ATTR_INTS = 7;

type Attr = { name: string; type: number; i?: number; s?: Uint8Array; ints?: number[] };
const ints = (name: string, v: number[]): Attr => ({ name, type: ATTR_INTS, ints: v });
const int = (name: string, v: number): Attr => ({ name, type: ATTR_INT, i: v });
const str = (name: string, v: string): Attr => ({ name, type: ATTR_STRING, s: new TextEncoder().encode(v) });

/** The model's ONNX bytes: input `rgb` [1, H, W, 3] uint8, output `rgb_out` [1, H·s, W·s, 3] uint8. */
export function esrganToOnnx(model: LayersModelJson, weightData: Uint8Array): Uint8Array {
  const cfg = model.modelTopology.model_config.config;
  // The weights, by name ("F_0/kernel"), in manifest order over the concatenated shards.
  const weights = new Map<string, { shape: number[]; data: Float32Array }>();
  let offset = 0;
  for (const w of model.weightsManifest.flatMap((g) => g.weights)) {
    if (w.dtype !== 'float32') throw new Error(`unsupported weight type ${w.dtype} for ${w.name}`);
    const n = w.shape.reduce((a, b) => a * b, 1);
    if (offset + n * 4 > weightData.byteLength) throw new Error(`weights are ${weightData.byteLength} bytes, ${w.name} ends past them`);
    const bytes = weightData.slice(offset, offset + n * 4);
    weights.set(w.name, { shape: w.shape, data: new Float32Array(bytes.buffer, bytes.byteOffset, n) });
    offset += n * 4;
  }
  if (offset !== weightData.byteLength) throw new Error(`weights are ${weightData.byteLength} bytes, the manifest names ${offset}`);

  const nodes: { input: string[]; output: string[]; name: string; opType: string; attribute: Attr[] }[] = [];
  const initializer: { name: string; dims: number[]; dataType: number; rawData: Uint8Array }[] = [];
  const node = (opType: string, name: string, input: string[], attribute: Attr[] = []) => {
    nodes.push({ opType, name, input, output: [name], attribute });
    return name;
  };
  const constant = (name: string, dims: number[], data: Float32Array) => {
    initializer.push({ name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
    return name;
  };
  const weight = (name: string) => {
    const w = weights.get(name);
    if (!w) throw new Error(`no weight ${name}`);
    return w;
  };

  // Keras is channels-last; ONNX's Conv is channels-first: transpose once on the way in and once on the way out.
  const [inputLayer] = cfg.input_layers[0];
  const [outputLayer] = cfg.output_layers[0];
  const names = new Map<string, string>();
  names.set(inputLayer, node('Transpose', `${inputLayer}_nchw`, [node('Cast', 'rgb_float', ['rgb'], [int('to', FLOAT)])], [ints('perm', [0, 3, 1, 2])]));
  const inputsOf = (layer: KerasLayer) =>
    (layer.inbound_nodes[0] ?? []).map(([from]) => {
      const n = names.get(from);
      if (!n) throw new Error(`layer ${layer.name} reads ${from} before it exists`);
      return n;
    });

  for (const layer of cfg.layers) {
    const c = layer.config;
    const ins = inputsOf(layer);
    switch (layer.class_name) {
      case 'InputLayer':
        continue;
      case 'Conv2D': {
        const [kh, kw] = c.kernel_size as number[];
        const same = c.padding === 'same';
        if (kh % 2 === 0 || kw % 2 === 0) throw new Error(`even kernel in ${layer.name}`);
        if ((c.strides as number[]).some((s) => s !== 1) || (c.dilation_rate as number[]).some((d) => d !== 1) || ((c.groups as number) ?? 1) !== 1)
          throw new Error(`unsupported convolution ${layer.name}`);
        if (c.activation !== 'linear') throw new Error(`unsupported activation ${String(c.activation)} in ${layer.name}`);
        // HWIO (Keras) → OIHW (ONNX).
        const k = weight(`${layer.name}/kernel`);
        const [H, W, I, O] = k.shape;
        const oihw = new Float32Array(k.data.length);
        for (let h = 0; h < H; h++)
          for (let w = 0; w < W; w++)
            for (let i = 0; i < I; i++) for (let o = 0; o < O; o++) oihw[((o * I + i) * H + h) * W + w] = k.data[((h * W + w) * I + i) * O + o];
        const inputs = [...ins, constant(`${layer.name}/kernel`, [O, I, H, W], oihw)];
        if (c.use_bias !== false) inputs.push(constant(`${layer.name}/bias`, [O], weight(`${layer.name}/bias`).data));
        const p = same ? [(kh - 1) / 2, (kw - 1) / 2, (kh - 1) / 2, (kw - 1) / 2] : [0, 0, 0, 0];
        names.set(layer.name, node('Conv', layer.name, inputs, [ints('kernel_shape', [kh, kw]), ints('pads', p), ints('strides', [1, 1])]));
        break;
      }
      case 'Activation':
        if (c.activation !== 'relu') throw new Error(`unsupported activation ${String(c.activation)}`);
        names.set(layer.name, node('Relu', layer.name, ins));
        break;
      case 'Concatenate': {
        const axis = c.axis as number;
        if (axis !== 3 && axis !== -1) throw new Error(`unsupported concatenation axis ${axis}`);
        names.set(layer.name, node('Concat', layer.name, ins, [int('axis', 1)]));
        break;
      }
      case 'Add':
        names.set(layer.name, node(ins.length === 2 ? 'Add' : 'Sum', layer.name, ins));
        break;
      case 'UpSampling2D': {
        if (c.interpolation !== 'nearest') throw new Error(`unsupported upsampling ${String(c.interpolation)}`);
        const [sh, sw] = c.size as number[];
        const scales = constant(`${layer.name}/scales`, [4], new Float32Array([1, 1, sh, sw]));
        // Keras's nearest upsampling repeats each pixel: asymmetric coordinates with floor pick exactly that source.
        names.set(
          layer.name,
          node(
            'Resize',
            layer.name,
            [ins[0], '', scales],
            [str('mode', 'nearest'), str('coordinate_transformation_mode', 'asymmetric'), str('nearest_mode', 'floor')],
          ),
        );
        break;
      }
      default:
        throw new Error(`unsupported layer ${layer.class_name} (${layer.name})`);
    }
  }

  const out = names.get(outputLayer);
  if (!out) throw new Error(`no output layer ${outputLayer}`);
  // The model maps 0–255 to 0–255: round, clip and cast back to bytes, channels last.
  const min = constant('byte_min', [], new Float32Array([0]));
  const max = constant('byte_max', [], new Float32Array([255]));
  const clipped = node('Clip', 'clipped', [node('Round', 'rounded', [out]), min, max]);
  const nhwc = node('Transpose', 'nhwc', [clipped], [ints('perm', [0, 2, 3, 1])]);
  nodes.push({ opType: 'Cast', name: 'rgb_out', input: [nhwc], output: ['rgb_out'], attribute: [int('to', UINT8)] });

  const image = (name: string, h: string, w: string) => ({
    name,
    type: { tensorType: { elemType: UINT8, shape: { dim: [{ dimValue: 1 }, { dimParam: h }, { dimParam: w }, { dimValue: 3 }] } } },
  });
  const Model = onnx.lookupType('ModelProto');
  const message = Model.fromObject({
    irVersion: 8,
    producerName: 'lagoon esrgan-onnx',
    opsetImport: [{ domain: '', version: 13 }],
    graph: { name: 'esrgan', node: nodes, initializer, input: [image('rgb', 'height', 'width')], output: [image('rgb_out', 'out_height', 'out_width')] },
  });
  return Model.encode(message).finish();
}
