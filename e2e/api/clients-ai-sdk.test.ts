// The Vercel AI SDK (`ai` + `@ai-sdk/openai`), unmodified, against Lagoon in both wire modes: the Responses provider
// and the chat provider with generateText and streamText, a tool loop on each, and embeddings.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { embed, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { type Harness, scriptedEmbeddingModel, startHarness } from '../support/harness.ts';

const weather = () =>
  tool({
    description: 'The weather in a city',
    inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
    execute: async ({ city }) => ({ city, degrees: 12 }),
  });

for (const word of ['service', 'venice']) {
  describe(`AI SDK (LAGOON_WIRE_NAME=${word})`, () => {
    let h: Harness;
    let provider: ReturnType<typeof createOpenAI>;
    before(async () => {
      h = await startHarness({ env: { LAGOON_WIRE_NAME: word }, models: (url) => [scriptedEmbeddingModel(url)] });
      const { key } = await h.newAccount({ usd: 10 });
      provider = createOpenAI({ baseURL: h.base, apiKey: key });
    });
    after(() => h.close());

    for (const kind of ['responses', 'chat'] as const) {
      const model = () => provider[kind]('scripted-model');

      test(`${kind}: generateText, with usage`, async () => {
        const r = await generateText({ model: model(), prompt: 'hello', maxRetries: 0 });
        assert.equal(r.text, 'Hello from the scripted engine.');
        assert.equal(r.usage.outputTokens, 5);
        assert.equal(r.finishReason, 'stop');
      });

      test(`${kind}: streamText: text deltas (and reasoning on responses)`, async () => {
        const r = streamText({ model: model(), prompt: '[[reasoning]] [[tokens:4]]', maxRetries: 0 });
        let text = '';
        for await (const delta of r.textStream) text += delta;
        assert.equal(text, 'w1 w2 w3 w4');
        // The Responses provider reads reasoning items; OpenAI's chat API has no reasoning field for it to read.
        if (kind === 'responses') assert.match((await r.reasoningText) ?? '', /scripted answer/);
        assert.equal((await r.usage).outputTokens, (await r.totalUsage).outputTokens);
      });

      test(`${kind}: a tool loop (call, execute, answer), generated and streamed`, async () => {
        const prompt = 'Weather in Oslo? [[tool:get_weather:{"city":"Oslo"}]]';
        const r = await generateText({ model: model(), prompt, tools: { get_weather: weather() }, stopWhen: stepCountIs(3), maxRetries: 0 });
        assert.equal(r.steps.length, 2);
        assert.deepEqual(r.steps[0].toolCalls[0].input, { city: 'Oslo' });
        assert.deepEqual(r.steps[0].toolResults[0].output, { city: 'Oslo', degrees: 12 });
        assert.equal(r.text, 'Hello from the scripted engine.');
        // The second request carried the call and its result back.
        const up = h.engine.requests.at(-1)!.body;
        assert.equal(up.messages.at(-1).role, 'tool');
        assert.equal(JSON.parse(up.messages.at(-1).content).degrees, 12);
        const s = streamText({ model: model(), prompt, tools: { get_weather: weather() }, stopWhen: stepCountIs(3), maxRetries: 0 });
        assert.equal(await s.text, 'Hello from the scripted engine.');
        assert.equal((await s.steps).length, 2);
      });

      test(`${kind}: an error surfaces as the SDK's API error`, async () => {
        await assert.rejects(generateText({ model: provider[kind]('no-such-model'), prompt: 'x', maxRetries: 0 }), (e: any) => e.statusCode === 404);
      });
    }

    test('embeddings', async () => {
      const r = await embed({ model: provider.embedding('embed-model'), value: 'hello', maxRetries: 0 });
      assert.equal(r.embedding.length, 16);
    });
  });
}
