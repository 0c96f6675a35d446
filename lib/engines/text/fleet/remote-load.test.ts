import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricsUrl, parseRemoteLoad } from './remote-load.ts';

test("reads vLLM's queue, running requests and KV-cache use, summed over its models", () => {
  const text = [
    '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
    '# TYPE vllm:num_requests_waiting gauge',
    'vllm:num_requests_waiting{engine="0",model_name="qwen"} 3.0',
    'vllm:num_requests_waiting{engine="1",model_name="qwen, v2"} 2.0',
    'vllm:num_requests_running{model_name="qwen"} 7.0 1700000000000',
    'vllm:kv_cache_usage_perc{model_name="qwen"} 0.42',
    'vllm:num_requests_waiting_by_reason{reason="x"} 99',
  ].join('\n');
  assert.deepEqual(parseRemoteLoad(text, 5), { waiting: 5, running: 7, kvUsage: 0.42, at: 5 });
});

test("SGLang's names; a server without these gauges gives nothing", () => {
  assert.deepEqual(parseRemoteLoad('sglang:num_queue_reqs 4\nsglang:token_usage 0.5\n', 1), { waiting: 4, running: 0, kvUsage: 0.5, at: 1 });
  assert.equal(parseRemoteLoad('process_cpu_seconds_total 12\n', 1), undefined);
  assert.equal(parseRemoteLoad('<html>not found</html>', 1), undefined);
});

test('the metrics live at the origin, not under /v1', () => {
  assert.equal(metricsUrl('http://10.0.0.1:8000/v1'), 'http://10.0.0.1:8000/metrics');
});
