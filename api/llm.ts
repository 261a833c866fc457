/**
 * The one place a language model is called: the tenant's OpenAI-compatible endpoint (tenant parameters `llm.base_url`,
 * `llm.model`, `llm.api_key`). Every feature that reads words through a model (segment rules, method explanations,
 * alert questions) shares these client settings and falls back to its deterministic path on LlmUnavailable.
 */
import type OpenAI from 'openai';
import { listTenantParameters } from '../db/parameters';
import type { Tx } from '../db/pool';

export interface LlmSettings {
  baseUrl: string;
  model: string;
  apiKey: string;
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

const LLM_TIMEOUT_MS = 30_000;

/** The model could not be reached or gave no answer: callers fall back to their deterministic path. */
export class LlmUnavailable extends Error {}

/** The tenant's language model (parameters `llm.*`), or null when `llm.base_url` is empty. */
export async function llmSettings(tx: Tx): Promise<LlmSettings | null> {
  const params = await listTenantParameters(tx);
  const get = (key: string) => params.find((p) => p.parameter_type === 'llm' && p.key === key)?.value;
  const baseUrl = String(get('base_url') ?? '').trim();
  if (!baseUrl) return null;
  return { baseUrl, model: String(get('model') ?? 'gpt-4o-mini'), apiKey: String(get('api_key') ?? '') };
}

/**
 * A client of the tenant's endpoint. The package loads on the first call, not with the API: most processes (the
 * worker, the CLIs, every test file that starts the app) never ask a model, and loading it cost each of them 0.1 s.
 */
export async function modelClient(settings: LlmSettings, opts: { timeoutMs: number; maxRetries: number }): Promise<OpenAI> {
  // a require, not import(): the dynamic import would type the ESM build, which TypeScript holds apart from the CommonJS one
  const { default: Client }: { default: typeof OpenAI } = require('openai');
  return new Client({ baseURL: settings.baseUrl, apiKey: settings.apiKey || 'not-needed', timeout: opts.timeoutMs, maxRetries: opts.maxRetries });
}

/** One chat completion against the tenant's OpenAI-compatible endpoint. Throws LlmUnavailable on failure. */
export async function chatCompletion(settings: LlmSettings, messages: ChatMessage[], opts: { json?: boolean } = {}): Promise<string> {
  const client = await modelClient(settings, { timeoutMs: LLM_TIMEOUT_MS, maxRetries: 1 });
  let content: string | null | undefined;
  try {
    const completion = await client.chat.completions.create({
      model: settings.model,
      temperature: 0,
      ...(opts.json ? { response_format: { type: 'json_object' as const } } : {}),
      messages,
    });
    content = completion.choices?.[0]?.message?.content;
  } catch (err) {
    throw new LlmUnavailable(err instanceof Error ? err.message : String(err));
  }
  if (!content || !content.trim()) throw new LlmUnavailable('the model returned no content');
  return content;
}
