// A validated chat request → the plan the pipeline runs: resolved model, parameters in effect, engine messages
// and sampling options. Every check that can fail with a 4xx happens here, before any credit is reserved.
import { ApiError } from '../api/errors.ts';
import type { ChatRequest, FunctionTool, ServiceParamsInput } from './schema.ts';
import { type Character, getCharacter } from '../characters/characters.ts';
import type { Store } from '../db/store.ts';
import { type Catalogue, resolveModel } from '../models/catalogue.ts';
import { completionCap, type ModelEntry } from '../models/schema.ts';
import { splitModelSuffix } from './suffix.ts';
import type { EngineMessage, EngineParams } from '../engines/text/types.ts';
import { toEngineMessages } from './messages.ts';
import { type EffectiveParams, effectiveParams } from './params.ts';

export interface ChatPlan {
  model: ModelEntry;
  character?: Character;
  params: EffectiveParams;
  messages: EngineMessage[];
  engineParams: EngineParams;
  stream: boolean;
  cacheKey?: string;
}

export interface PrepareDeps {
  catalogue: Catalogue;
  store: Store;
  includeSystemPromptKey: string;
  /** Whether a web search provider is configured. */
  searchAvailable: boolean;
  /** The caller's account: `character_slug` resolves published characters and those of the account's own user. */
  accountId?: string;
  /** Private hosts that file and image URLs may still be fetched from (Config.fetchAllowHosts). */
  fetchAllowHosts?: string[];
  /** The request carries E2EE headers (the wire's `tee-*` client and model keys). */
  e2eeHeaders?: boolean;
  /** Writes down input_audio for a model without audio input; absent: such parts are refused. */
  transcribeAudio?: (data: Buffer, format: string) => Promise<string | undefined>;
}

function capabilityGate(ok: boolean, model: ModelEntry, what: string, param: string) {
  if (!ok) throw new ApiError('UNSUPPORTED_CONTENT', `Model ${model.id} does not support ${what}`, { param });
}

/** The function tools of a request; `web_search` / `x_search` tools are service parameters (searchToolParams). */
export const functionTools = (req: Pick<ChatRequest, 'tools'>): FunctionTool[] => (req.tools ?? []).filter((t): t is FunctionTool => t.type === 'function');

/** `{type: "web_search"}` lets the model search (`auto`), `{type: "x_search"}` asks for X search; explicit parameters win. */
function searchToolParams(req: ChatRequest): ServiceParamsInput {
  const types = new Set((req.tools ?? []).map((t) => t.type));
  return { ...(types.has('web_search') ? { enable_web_search: 'auto' as const } : {}), ...(types.has('x_search') ? { enable_x_search: true } : {}) };
}

function gates(req: ChatRequest, model: ModelEntry, p: EffectiveParams, searchAvailable: boolean, e2eeHeaders: boolean) {
  const c = model.capabilities;
  if (model.type !== 'text') throw new ApiError('INVALID_MODEL', `Model ${model.id} is a ${model.type} model, not a text model`, { param: 'model' });
  // A tool_choice alone asks for functions too; beside search tools only, it is about those.
  const wantsFunctions = functionTools(req).length > 0 || (!req.tools?.length && req.tool_choice && req.tool_choice !== 'none');
  capabilityGate(c.function_calling || !wantsFunctions, model, 'tools (function calling)', 'tools');
  capabilityGate(c.logprobs || !(req.logprobs || req.top_logprobs), model, 'logprobs', 'logprobs');
  capabilityGate(c.response_schema || !req.response_format || req.response_format.type === 'text', model, 'response_format', 'response_format');
  if (req.top_logprobs && !req.logprobs) throw new ApiError('INVALID_REQUEST', 'top_logprobs requires logprobs: true', { param: 'top_logprobs' });
  // enable_e2ee is the public API's default: it asks for encryption only together with the E2EE headers.
  if (p.enable_e2ee && !c.e2ee && e2eeHeaders) {
    throw new ApiError('UNSUPPORTED_CONTENT', `Model ${model.id} does not support end-to-end encryption (E2EE headers with enable_e2ee)`);
  }
  if (p.enable_x_search && !c.x_search) throw new ApiError('UNSUPPORTED_CONTENT', `Model ${model.id} does not support X search (enable_x_search)`);
  if (p.enable_web_search === 'on' && !searchAvailable) {
    throw new ApiError('INVALID_REQUEST', 'Web search is not configured on this server (enable_web_search: "on")');
  }
}

function maxTokensOf(req: ChatRequest, model: ModelEntry): number {
  const cap = completionCap(model); // the same cap /models reports as maxCompletionTokens
  const asked = req.max_completion_tokens ?? (req.max_tokens && req.max_tokens > 0 ? req.max_tokens : undefined);
  if (asked === undefined) return cap;
  if (asked > cap) {
    throw new ApiError('INVALID_REQUEST', `max_completion_tokens ${asked} exceeds this model's maximum of ${cap}`, {
      param: req.max_completion_tokens ? 'max_completion_tokens' : 'max_tokens',
    });
  }
  return asked;
}

export async function prepareChat(req: ChatRequest, deps: PrepareDeps): Promise<ChatPlan> {
  const { base, params: suffix } = splitModelSuffix(req.model, deps.includeSystemPromptKey);
  const params = effectiveParams({ ...searchToolParams(req), ...req.service_parameters }, suffix);
  let character: Character | undefined;
  if (params.character_slug) {
    character = await getCharacter(deps.store, params.character_slug, { accountId: deps.accountId });
    if (!character) throw new ApiError('CHARACTER_NOT_FOUND', `Character "${params.character_slug}" not found`);
  }
  // A character's own model applies when the caller asks for the default model.
  const wantsDefault = base === 'default';
  const model = resolveModel(deps.catalogue, character?.modelId && wantsDefault ? character.modelId : base);
  gates(req, model, params, deps.searchAvailable, deps.e2eeHeaders ?? false);
  if (!model.capabilities.e2ee) params.enable_e2ee = false; // not in effect: the echo says so
  const tools = functionTools(req);

  const stop = req.stop == null ? undefined : typeof req.stop === 'string' ? [req.stop] : req.stop;
  const engineParams: EngineParams = {
    temperature: req.temperature ?? character?.temperature ?? model.constraints.temperature,
    top_p: req.top_p ?? model.constraints.top_p,
    top_k: req.top_k,
    min_p: req.min_p,
    max_tokens: maxTokensOf(req, model),
    stop,
    n: req.n ?? 1,
    seed: req.seed ?? undefined,
    frequency_penalty: req.frequency_penalty ?? undefined,
    presence_penalty: req.presence_penalty ?? undefined,
    repetition_penalty: req.repetition_penalty,
    logprobs: req.logprobs ?? undefined,
    top_logprobs: req.top_logprobs ?? undefined,
    tools: tools.length ? tools : undefined,
    tool_choice: tools.length ? (req.tool_choice ?? undefined) : undefined,
    parallel_tool_calls: tools.length ? (req.parallel_tool_calls ?? undefined) : undefined,
    response_format: req.response_format ?? undefined,
    reasoning_effort: params.disable_thinking ? undefined : (req.reasoning_effort ?? undefined),
    disable_thinking: params.disable_thinking || req.reasoning?.enabled === false || req.reasoning_effort === 'none',
    native_search: params.enable_x_search || undefined,
    user: req.user ?? undefined,
  };
  const messages = await toEngineMessages({
    model,
    messages: req.messages,
    operatorPrompts: deps.catalogue.systemPrompts,
    includeOperatorPrompts: params.include_service_system_prompt,
    character,
    allowHosts: deps.fetchAllowHosts,
    transcribeAudio: deps.transcribeAudio,
  });
  return { model, character, params, messages, engineParams, stream: req.stream ?? false, cacheKey: req.prompt_cache_key ?? undefined };
}
