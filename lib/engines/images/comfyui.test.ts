// ComfyUI workflow templates: what a template may hold, and how the request's values are put in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EngineError } from '../text/types.ts';
import { fillWorkflow, parseWorkflow } from './comfyui.ts';

const template = {
  '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: '{{ steps }}', cfg: '{{cfg_scale}}', positive: ['6', 0] } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'photo of {{prompt}}, {{prompt}}' } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: '{{negative_prompt}}' } },
};

describe('ComfyUI workflow templates', () => {
  test('numeric placeholders become numbers, text placeholders are replaced inside text; the template is untouched', () => {
    const w = parseWorkflow(JSON.stringify(template), 'test.json');
    assert.deepEqual([...w.uses].sort(), ['cfg_scale', 'negative_prompt', 'prompt', 'seed', 'steps']);
    const filled = fillWorkflow(w, { seed: 42, steps: 9, cfg_scale: 6.5, prompt: 'a {{cat}}', negative_prompt: '' }) as any;
    assert.deepEqual(filled['3'].inputs, { seed: 42, steps: 9, cfg: 6.5, positive: ['6', 0] });
    assert.equal(filled['6'].inputs.text, 'photo of a {{cat}}, a {{cat}}', 'a value is never read as a template');
    assert.equal(filled['7'].inputs.text, '');
    assert.equal((w.template as any)['3'].inputs.seed, '{{seed}}');
  });

  test('bad templates are refused when the engine starts; a value a template needs and the job lacks is a failure', () => {
    assert.throws(() => parseWorkflow('{not json', 'a.json'), /a.json is not valid JSON/);
    assert.throws(() => parseWorkflow('[1]', 'a.json'), /API-format object of nodes/);
    assert.throws(() => parseWorkflow(JSON.stringify({ '1': { inputs: { text: '{{prompt}} {{colour}}' } } }), 'a.json'), /unknown placeholder \{\{colour\}\}/);
    assert.throws(() => parseWorkflow(JSON.stringify({ '1': { inputs: { text: 'fixed' } } }), 'a.json'), /no \{\{prompt\}\} placeholder/);
    const w = parseWorkflow(JSON.stringify({ '1': { inputs: { text: '{{prompt}}', image: '{{image}}' } } }), 'a.json');
    assert.throws(
      () => fillWorkflow(w, { prompt: 'x' }),
      (e: unknown) => e instanceof EngineError && /needs \{\{image\}\}/.test(e.message),
    );
  });
});
