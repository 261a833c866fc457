import { ApplicationFailure } from '@temporalio/common';
import { alertFactsPage, alertItemRanges, listAlertRules, saveAlertSeriesState, upsertAlerts, type ItemRange, type SeriesKey } from '../../db/alerts';
import { appendLog } from '../../db/jobs';
import { getPipeline } from '../../db/pipelines';
import { withTenant, type Db, type Tx } from '../../db/pool';
import { badness, evaluateAlerts } from '../../domain/alerts/evaluate';
import { RULES_BY_METRIC } from '../../domain/alerts/ontology';
import { keysOfUniqueIds } from '../../domain/series/keys';
import { checkpoint } from '../jobs/activity';

/** Series per load-evaluate-write round; the activity beats between rounds. */
const PAGE = 2000;

export interface AlertGenerateInput {
  accountId: string;
  jobId: string;
  pipelineId: number;
  /** only these series (unique ids): what a run of a few series changed; the other series' alerts stay as they are */
  series?: string[] | null;
  /** only the series of these items (alertsItemRanges): one of several generations side by side */
  items?: ItemRange | null;
}

export interface AlertGenerateResult {
  pipeline_id: number;
  series: number;
  rules: number;
  alerts: number;
  cleared: number;
}

/**
 * Alert generation for one pipeline, or one item range of it, in one transaction (docs/ALERTS.md): the enabled rules
 * over every series' facts, alerts upserted per (pipeline, series, metric). A retry starts over, as nothing of a failed
 * attempt committed. Ranges are disjoint in series, so generations of different ranges never touch the same alert.
 */
export function createAlertActivities({ db }: { db: Db }) {
  const generate = (input: AlertGenerateInput) => withTenant(db, input.accountId, async (tx: Tx): Promise<AlertGenerateResult> => {
    let segmentIds: number[] = [];
    if (input.pipelineId > 0) {
      const p = await getPipeline(tx, input.pipelineId);
      if (!p) throw ApplicationFailure.nonRetryable(`alerts: pipeline ${input.pipelineId} not found`, 'NoPipeline');
      segmentIds = [...p.segment_ids];
    }
    const rules = (await listAlertRules(tx)).filter((r) => r.enabled);
    let series = 0;
    let alerts = 0;
    let cleared = 0;
    let after: SeriesKey | null = null;
    const only = input.series?.length ? keysOfUniqueIds(input.series) : null;
    const items = input.items ?? { from: null, to: null };
    for (;;) {
      checkpoint({ phase: 'page', series });
      const facts = await alertFactsPage(tx, input.pipelineId, segmentIds, after, PAGE, only, items);
      if (!facts.length) break;
      const fired = evaluateAlerts(rules, facts).map((a) => ({ ...a, domain: RULES_BY_METRIC.get(a.metric_name)!.domain, badness: badness(a.value, a.comparison) }));
      const w = await upsertAlerts(tx, input.pipelineId, input.jobId, facts, fired);
      await saveAlertSeriesState(tx, input.pipelineId, facts);
      series += facts.length;
      alerts += w.written;
      cleared += w.cleared;
      after = facts[facts.length - 1];
    }
    const range = items.from === null && items.to === null ? '' : ` of items ${items.from ?? 'first'} to ${items.to === null ? 'last' : `before ${items.to}`}`;
    await appendLog(tx, input.jobId, `alerts: pipeline ${input.pipelineId}, ${rules.length} enabled rules over ${series}${only ? ` of the run's ${only.length}` : ''} series${range}: ${alerts} alerts raised or refreshed, ${cleared} open alerts cleared`);
    return { pipeline_id: input.pipelineId, series, rules: rules.length, alerts, cleared };
  });

  return {
    /** Item ranges that split the series about evenly into `parts`, for as many generations side by side. */
    async alertsItemRanges(input: { accountId: string; parts: number }): Promise<ItemRange[]> {
      return withTenant(db, input.accountId, (tx) => alertItemRanges(tx, input.parts));
    },

    async alertsGenerate(input: AlertGenerateInput): Promise<AlertGenerateResult> {
      checkpoint({ phase: 'start' });
      return generate(input);
    },
  };
}
