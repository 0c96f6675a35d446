// LangChain's OpenAI integration (`@langchain/openai`), unmodified, against Lagoon in both wire modes: ChatOpenAI
// invoke, stream and tool calls on chat completions and on the Responses API, and OpenAIEmbeddings.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { type Harness, scriptedEmbeddingModel, startHarness } from '../support/harness.ts';

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

for (const word of ['service', 'venice']) {
  describe(`LangChain (LAGOON_WIRE_NAME=${word})`, () => {
    let h: Harness;
    let key: string;
    before(async () => {
      h = await startHarness({
        env: { LAGOON_WIRE_NAME: word },
        models: (url) => [scriptedEmbeddingModel(url)],
      });
      ({ key } = await h.newAccount({ usd: 10 }));
    });
    after(() => h.close());

    for (const useResponsesApi of [false, true]) {
      const api = useResponsesApi ? 'responses' : 'chat';
      const chat = () => new ChatOpenAI({ model: 'scripted-model', apiKey: key, configuration: { baseURL: h.base }, maxRetries: 0, useResponsesApi });

      test(`${api}: invoke, with usage`, async () => {
        const r = await chat().invoke('hello');
        assert.equal(r.text, 'Hello from the scripted engine.');
        assert.equal(r.usage_metadata?.output_tokens, 5);
        assert.ok(h.engine.requests.length > 0);
      });

      test(`${api}: stream`, async () => {
        let text = '';
        let chunks = 0;
        for await (const chunk of await chat().stream('[[tokens:6]]')) {
          text += chunk.text;
          chunks++;
        }
        assert.equal(text, 'w1 w2 w3 w4 w5 w6');
        assert.ok(chunks >= 6);
      });

      test(`${api}: tools: a call, then the answer to its result`, async () => {
        const model = chat().bindTools([weatherTool]);
        const question = new HumanMessage('Weather in Oslo? [[tool:get_weather:{"city":"Oslo"}]]');
        const first = await model.invoke([question]);
        assert.equal(first.tool_calls?.length, 1);
        const call = first.tool_calls![0];
        assert.equal(call.name, 'get_weather');
        assert.deepEqual(call.args, { city: 'Oslo' });
        const streamed = await model.stream([question]);
        let merged: AIMessageChunk | undefined;
        for await (const chunk of streamed) merged = merged ? merged.concat(chunk) : chunk;
        assert.deepEqual(merged?.tool_calls?.[0]?.args, { city: 'Oslo' });
        const answer = await model.invoke([question, first, new ToolMessage({ content: '12 degrees', tool_call_id: call.id! })]);
        assert.equal(answer.text, 'Hello from the scripted engine.');
        assert.equal(h.engine.requests.at(-1)!.body.messages.at(-1).content, '12 degrees');
      });
    }

    test('chat: an error is the client error with our status', async () => {
      const bad = new ChatOpenAI({ model: 'no-such-model', apiKey: key, configuration: { baseURL: h.base }, maxRetries: 0 });
      await assert.rejects(bad.invoke('x'), (e: any) => {
        assert.equal(e.status, 404);
        assert.match(e.message, /Specified model not found.*no-such-model/);
        return true;
      });
    });

    test('OpenAIEmbeddings', async () => {
      const embeddings = new OpenAIEmbeddings({ model: 'embed-model', apiKey: key, configuration: { baseURL: h.base }, maxRetries: 0 });
      const v = await embeddings.embedQuery('hello');
      assert.equal(v.length, 16);
      const many = await embeddings.embedDocuments(['a', 'b']);
      assert.equal(many.length, 2);
    });
  });
}
