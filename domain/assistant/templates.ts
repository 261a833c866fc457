/**
 * The questions the assistant answers without a model (issue 19 item 4): matched here from the words, turned into SQL
 * by db/assistantTemplates.ts. Every value taken from the question is a number or a code of letters, digits, `_`, `-`
 * and `.`, so nothing a user types can become SQL.
 */

export type TopMeasure = 'demand' | 'forecast' | 'safety_stock' | 'shortage';
export type ExceptionKind = 'forecast' | 'io' | 'supply';

export type TemplateMatch =
  | { kind: 'forecast'; item: string; site: string }
  | { kind: 'shortages'; weeks: number; site: string | null }
  | { kind: 'exceptions'; type: ExceptionKind | null }
  | { kind: 'count_by_class'; classKind: 'demand_class' | 'abc' }
  | { kind: 'top'; n: number; measure: TopMeasure };

const CODE = '([A-Za-z0-9][A-Za-z0-9_.-]{0,63})';
const clampInt = (v: string | undefined, dflt: number, min: number, max: number) => {
  const n = v === undefined ? dflt : Number.parseInt(v, 10);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : dflt;
};
const WORD_NUMBERS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12, twenty: 20, fifty: 50 };
const numberWords = (q: string) => q.replace(/\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty)\b/gi, (w) => String(WORD_NUMBERS[w.toLowerCase()]));
const strip = (code: string) => code.replace(/[.-]+$/, '');

/** The template a question asks for, or null. */
export function matchTemplate(question: string): TemplateMatch | null {
  const q = numberWords(question).replace(/[?!,;]/g, ' ');
  const lower = q.toLowerCase();

  if (/\bforecasts?\b/.test(lower)) {
    const uid = /\b(\d+)_(\d+)\b/.exec(q);
    if (uid) return { kind: 'forecast', item: uid[1], site: uid[2] };
    const item = new RegExp(`\\b(?:item|sku|product)\\s+${CODE}`, 'i').exec(q);
    const site = new RegExp(`\\b(?:site|location|warehouse|at)\\s+(?:site\\s+)?${CODE}`, 'i').exec(q.slice(item ? item.index + item[0].length : 0));
    if (item && site) return { kind: 'forecast', item: strip(item[1]), site: strip(site[1]) };
  }

  if (/\b(short|shortages?|stock-?outs?|run(ning)? out|out of stock)\b/.test(lower)) {
    const weeks = /\b(?:next|coming|following)\s+(\d+)\s+weeks?\b/.exec(lower) ?? /\b(\d+)\s+weeks?\b/.exec(lower);
    const site = new RegExp(`\\b(?:site|location|warehouse)\\s+${CODE}`, 'i').exec(q);
    return { kind: 'shortages', weeks: clampInt(weeks?.[1], 4, 1, 52), site: site ? strip(site[1]) : null };
  }

  if (/\bexceptions?\b/.test(lower)) {
    const type = /\b(forecast|io|inventory|supply)\b/.exec(lower)?.[1];
    return { kind: 'exceptions', type: type === 'inventory' ? 'io' : ((type as ExceptionKind | undefined) ?? null) };
  }

  if (/\b(how many|count|counts|number of)\b/.test(lower) && /\b(class|classes|abc)\b/.test(lower)) {
    return { kind: 'count_by_class', classKind: /\babc\b/.test(lower) ? 'abc' : 'demand_class' };
  }

  const top = /\b(?:top|largest|biggest|highest|most)\s+(\d+)\b/.exec(lower) ?? (/\b(top|largest|biggest|highest)\b/.test(lower) ? [] as unknown as RegExpExecArray : null);
  if (top) {
    const measure: TopMeasure | null =
      /\bsafety[ -]?stock\b/.test(lower) ? 'safety_stock'
        : /\bshortage/.test(lower) ? 'shortage'
          : /\bforecast/.test(lower) ? 'forecast'
            : /\b(demand|sales|volume)\b/.test(lower) ? 'demand' : null;
    if (measure) return { kind: 'top', n: clampInt(top[1], 10, 1, 500), measure };
  }
  return null;
}

export function describeTemplate(m: TemplateMatch): string {
  switch (m.kind) {
    case 'forecast': return `forecast of item ${m.item} at site ${m.site}`;
    case 'shortages': return `shortages in the next ${m.weeks} weeks${m.site ? ` at site ${m.site}` : ''}`;
    case 'exceptions': return `series with open ${m.type ? `${m.type} ` : ''}exceptions`;
    case 'count_by_class': return m.classKind === 'abc' ? 'series per ABC class' : 'series per demand class';
    case 'top': return `top ${m.n} series by ${m.measure.replace('_', ' ')}`;
  }
}
