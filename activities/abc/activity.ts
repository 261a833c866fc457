import { annualFigures, annualWindow, getAbcConfig, markAbcRun, replaceAbcResults, type AbcResultWrite } from '../../db/abc';
import { appendLog } from '../../db/jobs';
import { withTenant, type Db } from '../../db/pool';
import { checkpoint } from '../jobs/activity';
import { classify, metricValue, type AbcMetric } from '../../domain/abc/classify';

export interface AbcClassifyResult {
  config_id: number;
  name: string | null;
  series: number;
  classes: Record<string, number>;
}

/** ABC classification of one configuration: load annual figures → pure engine → replace the results, in one transaction. */
export function createAbcActivities({ db }: { db: Db }) {
  return {
    async abcClassify(input: { accountId: string; jobId: string; configId: number }): Promise<AbcClassifyResult> {
      checkpoint({ configId: input.configId, phase: 'load' });
      return withTenant(db, input.accountId, async (tx) => {
        const config = await getAbcConfig(tx, input.configId);
        if (!config) {
          await appendLog(tx, input.jobId, `abc: configuration ${input.configId} no longer exists; skipped`, 'warning');
          return { config_id: input.configId, name: null, series: 0, classes: {} };
        }
        const window = await annualWindow(tx);
        const f = await annualFigures(tx, window);
        const n = f.item_id.length;
        const figures = (i: number) => ({ volume: f.volume[i], frequency: f.frequency[i], unit_price: f.unit_price[i], avg_unit_cost: f.avg_unit_cost[i] });
        const values = Float64Array.from({ length: n }, (_, i) => metricValue(config.metric as AbcMetric, figures(i)));
        const c = classify(values, config.thresholds);
        checkpoint({ configId: input.configId, phase: 'store' });
        const rows: AbcResultWrite[] = [];
        const classes: Record<string, number> = Object.fromEntries(config.class_labels.map((l) => [l, 0]));
        for (let i = 0; i < n; i += 1) {
          const label = config.class_labels[c.classIndex[i]];
          classes[label] += 1;
          rows.push({
            item_id: f.item_id[i], site_id: f.site_id[i], class_label: label, rank: c.rank[i], metric_value: values[i], share: c.share[i],
            cumulative_share: c.cumulativeShare[i], annual_volume: f.volume[i], annual_value: metricValue('annual_value', figures(i)),
          });
        }
        await replaceAbcResults(tx, config.id, input.jobId, rows);
        await markAbcRun(tx, config.id, input.jobId);
        const mix = config.class_labels.map((l) => `${l} ${classes[l]}`).join(', ');
        await appendLog(tx, input.jobId, window
          ? `abc: '${config.name}' (${config.metric}) over ${window.from}..${window.to}: ${n} series: ${mix}`
          : `abc: '${config.name}' (${config.metric}): no weekly history yet; ${n} series in the last class`);
        return { config_id: config.id, name: config.name, series: n, classes };
      });
    },
  };
}
