import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readGgufFileInfo } from 'node-llama-cpp';
import { buildGguf, type GgufTensor } from './gguf-writer.ts';

test('node-llama-cpp reads back the metadata, tensor infos and data', async () => {
  const tensors: GgufTensor[] = [
    { name: 'a.weight', dims: [3, 2], data: Float32Array.from([1, 2, 3, 4, 5, 6]) },
    // 5 floats = 20 bytes: the next tensor's offset must be padded to the alignment.
    { name: 'b.weight', dims: [5], data: Float32Array.from([0.5, -1, 2.25, 8, -0]) },
    { name: 'c.weight', dims: [2], data: new Float32Array([7, 9]) },
  ];
  const bytes = buildGguf(
    {
      'general.architecture': { type: 'string', value: 'llama' },
      'general.alignment': { type: 'u32', value: 64 },
      'test.u32': { type: 'u32', value: 4_000_000_000 },
      'test.i32': { type: 'i32', value: -5 },
      'test.u64': { type: 'u64', value: 2n ** 40n },
      'test.f32': { type: 'f32', value: 0.25 },
      'test.bool': { type: 'bool', value: true },
      'test.strings': { type: 'string[]', value: ['▁hello', '<0x0A>', ''] },
      'test.floats': { type: 'f32[]', value: [1.5, -2] },
      'test.ints': { type: 'i32[]', value: [1, -1, 6] },
    },
    tensors,
  );
  const dir = await mkdtemp(path.join(tmpdir(), 'lagoon-gguf-'));
  try {
    const file = path.join(dir, 'x.gguf');
    await writeFile(file, bytes);
    const info = await readGgufFileInfo(file, { logWarnings: false });
    assert.equal(info.version, 3);
    assert.equal(Number(info.tensorCount), 3);
    const m = info.metadata as unknown as Record<string, Record<string, unknown>>;
    assert.equal(m.general.architecture, 'llama');
    assert.equal(m.general.alignment, 64);
    assert.deepEqual(
      { ...m.test, u64: BigInt(m.test.u64 as number | bigint) },
      { u32: 4_000_000_000, i32: -5, u64: 2n ** 40n, f32: 0.25, bool: true, strings: ['▁hello', '<0x0A>', ''], floats: [1.5, -2], ints: [1, -1, 6] },
    );
    assert.deepEqual(
      info.tensorInfo!.map((t) => [t.name, t.dimensions.map(Number), t.ggmlType]),
      [
        ['a.weight', [3, 2], 0],
        ['b.weight', [5], 0],
        ['c.weight', [2], 0],
      ],
    );
    for (const [i, t] of info.tensorInfo!.entries()) {
      const at = Number(t.fileOffset);
      assert.equal(at % 64, 0, `${t.name} is aligned`);
      const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + tensors[i].data.byteLength));
      assert.deepEqual(data, tensors[i].data);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the header is GGUF v3 and the data starts aligned to 32 by default', () => {
  const bytes = buildGguf({ 'general.name': { type: 'string', value: 'x' } }, [{ name: 't', dims: [1], data: new Float32Array([3]) }]);
  assert.equal(bytes.subarray(0, 4).toString('ascii'), 'GGUF');
  assert.equal(bytes.readUInt32LE(4), 3);
  assert.equal(bytes.length % 32, 0);
  assert.equal(bytes.readFloatLE(bytes.length - 32), 3);
});

test('inconsistent tensors are refused', () => {
  assert.throws(() => buildGguf({}, [{ name: 't', dims: [2, 2], data: new Float32Array(3) }]), /dims hold 4 values/);
  const t = { name: 't', dims: [1], data: new Float32Array(1) };
  assert.throws(() => buildGguf({}, [t, t]), /duplicate tensor/);
  assert.throws(() => buildGguf({ 'general.alignment': { type: 'u32', value: 12 } }, []), /bad alignment/);
});
