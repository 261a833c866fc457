/** The model host as GET /api/assistant/status sees it: does it answer, which models does it offer. */
import { modelClient, type LlmSettings } from '../../llm';

const PROBE_TIMEOUT_MS = 3000;

export async function probeModelHost(settings: LlmSettings): Promise<{ available: boolean; models: string[] }> {
  try {
    const client = await modelClient(settings, { timeoutMs: PROBE_TIMEOUT_MS, maxRetries: 0 });
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
