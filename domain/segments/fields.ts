import { OPERATORS_BY_TYPE, type FieldDef, type FieldSource, type FieldType } from './rules';

/** Syntetos-Boylan demand classes (same cut-offs as activities/characterization: ADI 1.32, CV² 0.49). */
export const DEMAND_CLASSES = ['smooth', 'erratic', 'intermittent', 'lumpy'] as const;

const def = (field: string, type: FieldType, source: FieldSource, label: string, description: string, values?: FieldDef['values']): FieldDef => ({
  field, type, source, label, description, operators: [...OPERATORS_BY_TYPE[type]], ...(values ? { values } : {}),
});

/** Fields every tenant has: item and site columns, series statistics and the best method. */
export function fixedFields(): FieldDef[] {
  return [
    def('unique_id', 'string', 'series', 'Series id', '`<item_id>_<site_id>`'),
    def('item_id', 'number', 'item', 'Item id', 'items.id'),
    def('item_xuid', 'string', 'item', 'Item code', 'items.xuid'),
    def('item_name', 'string', 'item', 'Item name', 'items.name'),
    def('avg_unit_cost', 'number', 'item', 'Average unit cost', 'items.avg_unit_cost (0 when unknown)'),
    def('unit_price', 'number', 'item', 'Unit price', 'items.unit_price (0 when unknown)'),
    def('site_id', 'number', 'site', 'Site id', 'sites.id'),
    def('site_xuid', 'string', 'site', 'Site code', 'sites.xuid'),
    def('site_name', 'string', 'site', 'Site name', 'sites.name'),
    def('site_type', 'string', 'site', 'Site type', 'sites.site_type'),
    def('n_observations', 'number', 'series', 'Weeks of history', 'weekly periods from the first demand week to the planning week (etl step); null before the etl step'),
    def('date_range_start', 'date', 'series', 'First week', 'Monday of the first demand week (etl step)'),
    def('date_range_end', 'date', 'series', 'Last week', 'Monday of the planning week (etl step)'),
    def('mean', 'number', 'series', 'Mean weekly demand', 'mean of the weekly demand (etl step)'),
    def('zero_ratio', 'number', 'series', 'Share of zero weeks', 'share of weeks without demand, 0..1 (etl step)'),
    def('total_demand', 'number', 'series', 'Total demand', 'sum of the weekly demand over the whole history (etl step)'),
    def('adi', 'number', 'series', 'ADI', 'average demand interval = weeks / weeks with demand (weeks when there is no demand at all), from series_weekly'),
    def('cov', 'number', 'series', 'Coefficient of variation', 'sample standard deviation / |mean| of the weekly demand (0 when the mean is 0), from series_weekly'),
    def('demand_class', 'string', 'series', 'Demand class', 'Syntetos-Boylan class from ADI (cut-off 1.32) and CV² of the non-zero demands (cut-off 0.49)', [...DEMAND_CLASSES]),
    def('is_intermittent', 'boolean', 'series', 'Intermittent', 'ADI > 1.32 (intermittent or lumpy)'),
    def('best_method', 'string', 'method', 'Best method', 'method chosen by the best-method step; null until that step has run'),
  ];
}

export interface AttributeKey {
  scope: 'item' | 'site';
  key: string;
  type: FieldType;
  values?: Array<string | number | boolean>;
}

export const attributeField = (a: AttributeKey): FieldDef =>
  def(`${a.scope}_attributes.${a.key}`, a.type, a.scope === 'item' ? 'item_attribute' : 'site_attribute', `${a.scope === 'item' ? 'Item' : 'Site'} attribute ${a.key}`,
    `attributes->'${a.key}' of the ${a.scope}; typed by inspecting the values present in this tenant`, a.values);

export const abcField = (config: { name: string; class_labels: string[] }): FieldDef =>
  def(`abc:${config.name}`, 'string', 'abc', `ABC class (${config.name})`, `class of the series in ABC configuration '${config.name}'; null before its first run`, [...config.class_labels]);

/** Type of an attribute from the JSON types of its values: all numbers → number, all booleans → boolean, all ISO dates → date, else string. */
export function inferAttributeType(jsonTypes: string[], allIsoDates: boolean): FieldType {
  const types = new Set(jsonTypes.filter((t) => t !== 'null'));
  if (types.size === 1 && types.has('number')) return 'number';
  if (types.size === 1 && types.has('boolean')) return 'boolean';
  if (types.size === 1 && types.has('string') && allIsoDates) return 'date';
  return 'string';
}
