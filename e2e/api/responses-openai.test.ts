// The official `openai` npm client's Responses API (responses.create, responses.stream) against Lagoon, unmodified,
// in both wire modes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type Harness, startHarness } from '../support/harness.ts';

for (const word of ['service', 'venice']) {
  describe(`openai client, responses (LAGOON_WIRE_NAME=${word})`, () => {
    let h: Harness;
    let client: OpenAI;
    before(async () => {
      h = await startHarness({ env: { LAGOON_WIRE_NAME: word } });
      const { key } = await h.newAccount({ usd: 10 });
      client = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 0 });
    });
    after(() => h.close());

    test('responses.create: output_text, usage, ids, and the model header', async () => {
      const { data: r, response } = await client.responses.create({ model: 'scripted-model', input: 'hello', instructions: 'Be nice.' }).withResponse();
      assert.equal(r.output_text, 'Hello from the scripted engine.');
      assert.equal(r.status, 'completed');
      assert.equal(r.usage?.output_tokens, 5);
      assert.equal(r.id, `resp_${response.headers.get('cf-ray')}`);
      assert.equal(response.headers.get(`x-${word}-model-id`), 'scripted-model');
      // The wire word's parameters object is accepted (and the other word's refused).
      const params = { [`${word}_parameters`]: { strip_thinking_response: true } };
      const stripped = await client.responses.create({
        model: 'scripted-model',
        input: '[[think]]',
        ...params,
      } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
      assert.deepEqual(
        stripped.output.map((i) => i.type),
        ['message'],
      );
    });

    test('responses.stream: events, text deltas and the final response', async () => {
      const stream = client.responses.stream({ model: 'scripted-model', input: '[[reasoning]] [[tokens:5]]' });
      const deltas: string[] = [];
      let reasoning = '';
      stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
      stream.on('response.reasoning_summary_text.delta', (e) => {
        reasoning += e.delta;
      });
      const final = await stream.finalResponse();
      assert.equal(deltas.join(''), 'w1 w2 w3 w4 w5');
      assert.equal(final.output_text, 'w1 w2 w3 w4 w5');
      assert.equal(reasoning, 'The user wants a scripted answer, so I will give one.');
      assert.deepEqual(
        final.output.map((i) => i.type),
        ['reasoning', 'message'],
      );
      assert.ok((final.usage?.output_tokens_details.reasoning_tokens ?? 0) > 0);
    });

    test('create with stream: true iterates the raw events', async () => {
      const events = await client.responses.create({ model: 'scripted-model', input: '[[tokens:3]]', stream: true });
      const types: string[] = [];
      for await (const e of events) types.push(e.type);
      assert.equal(types[0], 'response.created');
      assert.equal(types.at(-1), 'response.completed');
      assert.equal(types.filter((t) => t === 'response.output_text.delta').length, 3);
    });

    test('a tool loop: function_call out, function_call_output in, the answer after it', async () => {
      const tools: OpenAI.Responses.Tool[] = [
        { type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      ];
      const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather? [[tool:get_weather:{"city":"Oslo"}]]' }];
      const first = await client.responses.create({ model: 'scripted-model', input, tools });
      const call = first.output.find((i) => i.type === 'function_call');
      assert.ok(call && call.type === 'function_call');
      assert.deepEqual(JSON.parse(call.arguments), { city: 'Oslo' });
      const streamed = await client.responses.stream({ model: 'scripted-model', input, tools }).finalResponse();
      const streamedCall = streamed.output.find((i) => i.type === 'function_call');
      assert.ok(streamedCall && streamedCall.type === 'function_call');
      assert.deepEqual(JSON.parse(streamedCall.arguments), { city: 'Oslo' });
      const second = await client.responses.create({
        model: 'scripted-model',
        tools,
        input: [...input, call, { type: 'function_call_output', call_id: call.call_id, output: '12 degrees' }],
      });
      assert.equal(second.output_text, 'Hello from the scripted engine.');
    });

    test('errors: typed client errors before the stream, an APIError from the error event midway', async () => {
      await assert.rejects(client.responses.create({ model: 'no-such-model', input: 'x' }), OpenAI.NotFoundError);
      await assert.rejects(client.responses.create({ model: 'scripted-model', input: 'x', temperature: 7 }), OpenAI.BadRequestError);
      await assert.rejects(
        client.responses.stream({ model: 'scripted-model', input: '[[tokens:10]] [[error_mid]]' }).finalResponse(),
        (e: unknown) => e instanceof OpenAI.APIError && /mid-stream/.test(e.message),
      );
    });

    test('structured output: text.format json_schema, and responses.parse', async () => {
      const r = await client.responses.parse({
        model: 'scripted-model',
        input: '[[json]]',
        text: {
          format: {
            type: 'json_schema',
            name: 'answer',
            strict: true,
            schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false },
          },
        },
      });
      assert.deepEqual(r.output_parsed, { answer: 42 });
    });
  });
}
