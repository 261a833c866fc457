/** The model host as GET /api/assistant/status sees it: does it answer, which models does it offer. */
import OpenAI from 'openai';
import type { LlmSettings } from '../../llm';

const PROBE_TIMEOUT_MS = 3000;

export async function probeModelHost(settings: LlmSettings): Promise<{ available: boolean; models: string[] }> {
  const client = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey || 'not-needed', timeout: PROBE_TIMEOUT_MS, maxRetries: 0 });
  try {
    const models: string[] = [];
    for await (const m of client.models.list()) {
      models.push(m.id);
      if (models.length >= 100) break;
    }
    return { available: true, models };
  } catch {
    return { available: false, models: [] };
  }
}
