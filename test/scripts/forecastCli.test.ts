import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dateOfDay, dayNumber, mondayOf, toWeekly } from '../../domain/time/weeks';
import { csvField, forecastLines, forecastSeries, num, summaryLine } from '../../scripts/forecastCsv/forecast';
import { checkRecord, columnIndex, CsvReader, dayOf, InputError, WeeklyAccumulator } from '../../scripts/forecastCsv/parse';
import { duration, Progress, progressText } from '../../scripts/forecastCsv/progress';
import { scriptArgs, scriptEnv } from '../support/scriptBundle';

const ROOT = path.join(__dirname, '../..');

// ------------------------------------------------------------------------------------------------ pure parts

describe('CsvReader', () => {
  const all = (text: string, chunk = text.length) => {
    const r = new CsvReader();
    const out = [];
    for (let i = 0; i < text.length; i += chunk) out.push(...r.push(text.slice(i, i + chunk)));
    out.push(...r.end());
    return out;
  };

  it('reads quoted fields, doubled quotes, newlines in quotes, CRLF and blank lines with the line each record starts on', () => {
    const text = '\uFEFFitem_id,site_id,ds,y\r\n"a,1",S,2024-01-01,3\r\n\r\n"say ""hi""",S,2024-01-02,4\n"two\nlines",S,2024-01-03,5\nb,S,2024-01-04,6';
    const expected = [
      { line: 1, fields: ['item_id', 'site_id', 'ds', 'y'] },
      { line: 2, fields: ['a,1', 'S', '2024-01-01', '3'] },
      { line: 4, fields: ['say "hi"', 'S', '2024-01-02', '4'] },
      { line: 5, fields: ['two\nlines', 'S', '2024-01-03', '5'] },
      { line: 7, fields: ['b', 'S', '2024-01-04', '6'] },
    ];
    expect(all(text)).toEqual(expected);
    // the same records whatever the chunk boundaries (a CRLF, a "" pair or a quote split across chunks)
    for (const chunk of [1, 2, 3, 7]) expect(all(text, chunk)).toEqual(expected);
  });

  it('keeps empty fields, a quoted empty field and a quote inside an unquoted field; other delimiters', () => {
    expect(all('a,,"",x"y\n')).toEqual([{ line: 1, fields: ['a', '', '', 'x"y'] }]);
    const r = new CsvReader(';');
    expect([...r.push('a;b,c\n'), ...r.end()]).toEqual([{ line: 1, fields: ['a', 'b,c'] }]);
  });

  it('refuses text after a closing quote and an unclosed quote, naming the line', () => {
    expect(() => all('a,b\n"x"y,1\n')).toThrow(new InputError('line 2: unexpected character after a closing quote'));
    expect(() => all('a,b\nc,d\n"open,1\n2,3\n')).toThrow(new InputError('line 3: a quoted field is not closed before the end of the file'));
  });
});

describe('columnIndex and checkRecord', () => {
  const cols = columnIndex(['y', ' DS ', 'extra', 'site_id', 'item_id']);

  it('finds the columns in any order and case, ignoring others', () => {
    expect(cols).toEqual({ item_id: 4, site_id: 3, ds: 1, y: 0 });
    expect(() => columnIndex(['item_id', 'ds', 'qty'], 3)).toThrow('line 3: missing columns site_id, y (header: item_id,ds,qty; required: item_id, site_id, ds, y)');
    expect(() => columnIndex(['item_id', 'site_id', 'ds', 'y', 'Y'])).toThrow('line 1: column y appears twice');
  });

  it('accepts a good row as day number and value', () => {
    expect(checkRecord(['2.5', '2024-03-06', 'x', ' S1 ', 'I1'], cols)).toEqual({ ok: true, row: { item_id: 'I1', site_id: 'S1', day: dayNumber('2024-03-06'), y: 2.5 } });
    expect(checkRecord(['1e2', '2024-02-29', '', 'S', 'I'], cols)).toEqual({ ok: true, row: { item_id: 'I', site_id: 'S', day: dayNumber('2024-02-29'), y: 100 } });
  });

  it.each([
    [['1', '2024-01-01', 'x', 'S'], '4 fields, expected at least 5'],
    [['1', '2024-01-01', 'x', 'S', ' '], 'item_id is empty'],
    [['1', '2024-01-01', 'x', '', 'I'], 'site_id is empty'],
    [['1', '01/02/2024', 'x', 'S', 'I'], "ds '01/02/2024' is not a YYYY-MM-DD date"],
    [['1', '2023-02-29', 'x', 'S', 'I'], "ds '2023-02-29' is not a calendar date"],
    [['1', '2024-13-01', 'x', 'S', 'I'], "ds '2024-13-01' is not a calendar date"],
    [['', '2024-01-01', 'x', 'S', 'I'], 'y is empty'],
    [['abc', '2024-01-01', 'x', 'S', 'I'], "y 'abc' is not a number"],
    [['0x10', '2024-01-01', 'x', 'S', 'I'], "y '0x10' is not a number"],
    [['1,5', '2024-01-01', 'x', 'S', 'I'], "y '1,5' is not a number"],
    [['Infinity', '2024-01-01', 'x', 'S', 'I'], "y 'Infinity' is not a number"],
    [['1e999', '2024-01-01', 'x', 'S', 'I'], "y '1e999' is not a finite number"],
    [['-0.5', '2024-01-01', 'x', 'S', 'I'], 'y -0.5 is negative (demand must be >= 0)'],
  ])('refuses %j: %s', (rec, reason) => {
    expect(checkRecord(rec, cols)).toEqual({ ok: false, reason });
  });

  it('dayOf caches both answers', () => {
    expect(dayOf('2024-01-01')).toBe(19723);
    expect(dayOf('2024-01-01')).toBe(19723);
    expect(dayOf('2024-02-30')).toBe("ds '2024-02-30' is not a calendar date");
  });
});

describe('WeeklyAccumulator', () => {
  it('sums rows into Monday weeks exactly like the etl toWeekly, in any row order', () => {
    // 2024-01-01 is a Monday; rows on several weekdays, unsorted, with duplicates and a gap
    const ds = ['2024-01-17', '2024-01-03', '2024-01-07', '2024-01-01', '2024-02-11', '2024-01-17', '2023-12-31'];
    const y = [5, 1, 2, 3, 4, 0.5, 9];
    const acc = new WeeklyAccumulator();
    ds.forEach((d, i) => acc.add({ item_id: 'I', site_id: 'S', day: dayNumber(d), y: y[i] }));
    expect(acc.seriesCount).toBe(1);
    expect(acc.endWeek).toBe('2024-02-05');
    const [s] = [...acc.drain()];
    const ref = toWeekly(ds, y, '2024-02-05')!;
    expect(s.start).toBe(ref.start);
    expect(s.start).toBe('2023-12-25');
    expect(Array.from(s.y)).toEqual(Array.from(ref.y));
    expect(Array.from(s.y)).toEqual([9, 6, 0, 5.5, 0, 0, 4]);
    expect(acc.seriesCount).toBe(0);
  });

  it('runs every series to the last week of the whole input and sorts by item_id then site_id', () => {
    const acc = new WeeklyAccumulator();
    const add = (item: string, site: string, d: string, y: number) => acc.add({ item_id: item, site_id: site, day: dayNumber(d), y });
    add('b', 'S1', '2024-03-04', 1);
    add('a', 'S2', '2024-01-01', 2);
    add('a', 'S1', '2024-01-08', 3);
    add('a', 'S1', '2024-01-22', 4);
    // grows past the initial capacity of 16 weeks, then back before the first week
    add('a', 'S1', '2024-07-01', 7);
    add('a', 'S1', '2023-10-02', 1);
    const out = [...acc.drain()];
    expect(out.map((s) => [s.item_id, s.site_id, s.start, s.y.length])).toEqual([
      ['a', 'S1', '2023-10-02', 40],
      ['a', 'S2', '2024-01-01', 27],
      ['b', 'S1', '2024-03-04', 18],
    ]);
    const a1 = out[0].y;
    expect([a1[0], a1[14], a1[16], a1[39]]).toEqual([1, 3, 4, 7]);
    expect(a1.reduce((t, v) => t + v, 0)).toBe(15);
    // a series that stopped selling ends in zeros up to the common last week
    expect(Array.from(out[1].y.slice(1))).toEqual(new Array(26).fill(0));
  });
});

describe('forecastSeries and the CSV lines', () => {
  const settings = { horizon: 4, period: 52, level: 0.9, backtest: { origins: 3, horizon: 13, step: 4, minTrain: 26 }, score: 'mase' as const, outliers: 'hampel' as const };

  it('forecasts a constant series as the constant, from the Monday after the history', () => {
    const r = forecastSeries({ item_id: 'I', site_id: 'S,1', start: '2024-01-01', y: new Float64Array(40).fill(12) }, settings);
    expect(r.error).toBeUndefined();
    expect(r.forecast_start).toBe('2024-10-07');
    expect(r.demand_class).toBe('smooth');
    expect(r.methods_tried).toContain(r.best_method);
    expect(Array.from(r.mean)).toEqual([12, 12, 12, 12]);
    expect(forecastLines(r).split('\n').slice(0, 2)).toEqual([
      `I,"S,1",2024-10-07,${r.best_method},12,${num(r.lower[0])},${num(r.upper[0])}`,
      `I,"S,1",2024-10-14,${r.best_method},12,${num(r.lower[1])},${num(r.upper[1])}`,
    ]);
    expect(summaryLine(r)).toBe(`I,"S,1",40,smooth,${r.best_method},${r.runner_up},0,${r.methods_tried.join('|')},0,\n`);
  });

  it('corrects outliers first, as the pipeline does, unless told not to', () => {
    const y = Float64Array.from({ length: 40 }, (_, i) => 10 + (i % 3));
    y[30] = 400;
    const s = { item_id: 'I', site_id: 'S', start: '2024-01-01', y };
    const corrected = forecastSeries(s, { ...settings, methods: ['moving_average'] });
    const raw = forecastSeries(s, { ...settings, methods: ['moving_average'], outliers: 'none' });
    expect(corrected.n_outliers).toBe(1);
    expect(raw.n_outliers).toBe(0);
    expect(corrected.mean[0]).toBeLessThan(12);
    expect(raw.mean[0]).toBeGreaterThan(corrected.mean[0]);
    expect(forecastSeries(s, { ...settings, methods: ['moving_average'], outliers: 'iqr' }).n_outliers).toBe(1);
  });

  it('turns an engine failure into an error instead of throwing', () => {
    const r = forecastSeries({ item_id: 'I', site_id: 'S', start: '2024-01-01', y: new Float64Array([1, 2, 3]) }, { ...settings, methods: ['arima'] });
    expect(r.error).toMatch(/no forecasting method could run/);
    expect(forecastLines(r)).toBe('');
    expect(summaryLine(r)).toMatch(/^I,S,3,smooth,,,,,0,"?no forecasting method could run/);
  });

  it('quotes only where needed and rounds to six decimals', () => {
    expect([csvField('a'), csvField('a,b'), csvField('say "x"'), csvField(' pad'), csvField('l\n2')]).toEqual(['a', '"a,b"', '"say ""x"""', '" pad"', '"l\n2"']);
    expect([num(1 / 3), num(-1e-9), num(NaN), num(5)]).toEqual(['0.333333', '0', '', '5']);
  });
});

describe('progress', () => {
  it('formats count, percentage, rate and ETA', () => {
    expect(progressText(25, 100, 10_000, 10)).toBe('[###-------] 25/100 series 25% 2.5/s ETA 30s');
    expect(progressText(0, 100, 0, 0)).toBe('0/100 series 0% 0.0/s ETA ?');
    expect(progressText(100, 100, 500, 0)).toBe('100/100 series 100% 200/s ETA 0s');
    expect([duration(59.6), duration(61), duration(3725)]).toEqual(['1m00s', '1m01s', '1h02m']);
  });

  it('writes plain lines per 10 % step without a TTY, and redraws one line on a TTY', () => {
    let t = 0;
    const plain: string[] = [];
    const p = new Progress(20, { isTTY: false, write: (s) => plain.push(s) }, () => t);
    for (let i = 0; i < 20; i++) {
      t += 1000;
      p.tick();
    }
    p.finish();
    expect(plain[0]).toBe('forecast: 0/20 series 0% 0.0/s ETA ?\n');
    expect(plain).toHaveLength(11);
    expect(plain[1]).toBe('forecast: 2/20 series 10% 1.0/s ETA 18s\n');
    expect(plain[10]).toBe('forecast: 20/20 series 100% 1.0/s ETA 0s\n');

    t = 0;
    const tty: string[] = [];
    const q = new Progress(1000, { isTTY: true, columns: 120, write: (s) => tty.push(s) }, () => t);
    for (let i = 0; i < 1000; i++) {
      t += 1; // 1 ms per series: only every 100th tick is drawn
      q.tick();
    }
    q.finish();
    expect(tty.length).toBe(1 + 10 + 1 + 1);
    expect(tty[1]).toBe('\r[##----------------------] 100/1000 series 10% 1000/s ETA 1s\x1b[K');
    expect(tty[tty.length - 1]).toBe('\n');
  });
});

// ------------------------------------------------------------------------------------------------ the CLI

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Run {
  const r = spawnSync(process.execPath, [...scriptArgs('scripts/forecastCli.ts'), ...args], { cwd: ROOT, env: scriptEnv(), encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const readCsv = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => l.split(','));

describe('forecastCli', () => {
  let dir: string;
  let input: string;
  const weeks = 60;
  // history: 2023-01-02 (Monday) for 60 weeks; the last week starts 2024-02-19, so forecasts start 2024-02-26
  const first = dayNumber('2023-01-02');
  const lastWeek = dateOfDay(first + 7 * (weeks - 1));
  const horizon = 6;
  const badLines: Record<number, string> = {};
  let dataRows = 0;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forecast-cli-'));
    input = path.join(dir, 'demand.csv');
    const lines = ['item_id,site_id,ds,y'];
    const bad = (row: string, reason: string) => {
      lines.push(row);
      badLines[lines.length] = reason;
    };
    for (let w = 0; w < weeks; w++) {
      // the constant series is booked on Wednesdays and Fridays: 3 + 4 = 7 a week
      lines.push(`CONST,S1,${dateOfDay(first + 7 * w + 2)},3`, `CONST,S1,${dateOfDay(first + 7 * w + 4)},4`);
      // intermittent: a demand of 4 to 6 every fourth week, on a Sunday (the Monday week before); stops 5 weeks early
      if (w % 4 === 1 && w < weeks - 5) lines.push(`INT,S2,${dateOfDay(first + 7 * w + 6)},${4 + (w % 3)}`);
      lines.push(`NOISY,S1,${dateOfDay(first + 7 * w)},${w === 40 ? 300 : 20 + ((w * 7919) % 11) + w / 10}`);
      if (w === 10) bad(`CONST,S1,2023-02-30,3`, "ds '2023-02-30' is not a calendar date");
      if (w === 20) bad(`NOISY,S1,${dateOfDay(first + 7 * w)},-2`, 'y -2 is negative (demand must be >= 0)');
      if (w === 30) bad(`NOISY,S1`, '2 fields, expected at least 4');
    }
    // the intermittent series' first row sets its first week (Sunday 2023-01-15 → Monday 2023-01-09)
    bad(`INT,S2,2023-03-01,lots`, "y 'lots' is not a number");
    dataRows = lines.length - 1;
    fs.writeFileSync(input, `${lines.join('\n')}\n`);
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('forecasts every series from the Monday after the last history week, reports bad lines, shows progress', () => {
    const out = path.join(dir, 'forecasts.csv');
    const summary = path.join(dir, 'summary.csv');
    const r = cli(['--input', input, '--output', out, '--summary', summary, '--horizon', String(horizon), '--threads', '2']);
    expect(r.stderr).not.toMatch(/Error|\n\s+at /);
    expect(r.status).toBe(0);

    // every bad line, with its line number and reason
    for (const [line, reason] of Object.entries(badLines)) expect(r.stderr).toContain(`line ${line}: ${reason} (row skipped)\n`);
    expect(dataRows).toBe(2 * weeks + weeks + 14 + 4);
    expect(r.stderr).toContain(`read ${dataRows} rows (4 skipped): 3 series, history to the week of ${lastWeek}`);
    // progress on stderr, plain lines since stderr is a pipe here
    expect(r.stderr).toContain('forecast: 0/3 series 0%');
    expect(r.stderr).toMatch(/forecast: 3\/3 series 100% [\d.]+\/s ETA 0s\n/);

    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ rows_read: dataRows, bad_rows: 4, series: 3, forecast_rows: 3 * horizon, failed_series: 0, first_forecast_week: '2024-02-26', threads: 2 });

    const rows = readCsv(out);
    expect(rows[0]).toEqual(['item_id', 'site_id', 'ds', 'method', 'yhat', 'yhat_lower', 'yhat_upper']);
    expect(rows).toHaveLength(1 + 3 * horizon);
    const sum = readCsv(summary);
    expect(sum[0]).toEqual(['item_id', 'site_id', 'n_weeks', 'demand_class', 'best_method', 'runner_up', 'score', 'methods_tried', 'n_outliers', 'error']);
    // sorted by item_id, site_id
    expect(sum.slice(1).map((s) => s[0])).toEqual(['CONST', 'INT', 'NOISY']);
    const bySeries = Object.fromEntries(sum.slice(1).map((s) => [s[0], s]));
    expect(bySeries.CONST.slice(1, 4)).toEqual(['S1', String(weeks), 'smooth']);
    expect(bySeries.INT.slice(1, 4)).toEqual(['S2', String(weeks - 1), 'intermittent']);
    expect(bySeries.NOISY[2]).toBe(String(weeks));
    for (const s of sum.slice(1)) expect(s[9]).toBe('');
    // the spike in week 40 of NOISY is corrected before the tournament (outlier step defaults: Hampel)
    expect(Number(bySeries.NOISY[8])).toBeGreaterThanOrEqual(1);
    expect(bySeries.CONST[8]).toBe('0');

    const expectedDates = Array.from({ length: horizon }, (_, k) => dateOfDay(first + 7 * (weeks + k)));
    expect(expectedDates[0]).toBe('2024-02-26');
    for (const id of ['CONST', 'INT', 'NOISY']) {
      const mine = rows.slice(1).filter((x) => x[0] === id);
      expect(mine.map((x) => x[2])).toEqual(expectedDates);
      for (const x of mine) expect(mondayOf(x[2])).toBe(x[2]);
      // one method for the whole series: the summary's best, one of those it tried
      const tried = bySeries[id][7].split('|');
      expect(new Set(mine.map((x) => x[3]))).toEqual(new Set([bySeries[id][4]]));
      expect(tried).toContain(mine[0][3]);
      expect(tried.length).toBeGreaterThan(1);
      for (const x of mine) {
        const [yhat, lo, hi] = x.slice(4).map(Number);
        expect(lo).toBeLessThanOrEqual(yhat);
        expect(yhat).toBeLessThanOrEqual(hi);
        expect(lo).toBeGreaterThanOrEqual(0);
      }
    }
    for (const x of rows.slice(1).filter((x) => x[0] === 'CONST')) expect(Number(x[4])).toBe(7);
    const intMean = rows.slice(1).filter((x) => x[0] === 'INT').map((x) => Number(x[4]));
    // 3 demands of ~5 every 4 weeks: about 1.2 a week (stopped 5 weeks ago, so nearer 1)
    for (const v of intMean) {
      expect(v).toBeGreaterThan(0.3);
      expect(v).toBeLessThan(2.5);
    }

    // one thread gives the same files, byte for byte
    const out1 = path.join(dir, 'forecasts1.csv');
    const summary1 = path.join(dir, 'summary1.csv');
    const r1 = cli(['--input', input, '--output', out1, '--summary', summary1, '--horizon', String(horizon), '--threads', '1', '--no-progress']);
    expect(r1.status).toBe(0);
    expect(r1.stderr).not.toContain('forecast: ');
    expect(fs.readFileSync(out1, 'utf8')).toBe(fs.readFileSync(out, 'utf8'));
    expect(fs.readFileSync(summary1, 'utf8')).toBe(fs.readFileSync(summary, 'utf8'));
  }, 180_000);

  it('honours --methods, and writes every bad row to --rejects', () => {
    const out = path.join(dir, 'ses.csv');
    const rejects = path.join(dir, 'rejects.csv');
    const summary = path.join(dir, 'ses_summary.csv');
    const r = cli(['--input', input, '--output', out, '--summary', summary, '--rejects', rejects, '--methods', 'naive,ses', '--horizon', '2', '--threads', '1']);
    expect(r.status).toBe(0);
    const sum = readCsv(summary).slice(1);
    for (const s of sum) expect(s[7]).toBe('naive|ses');
    expect(readCsv(out).slice(1).every((x) => ['naive', 'ses'].includes(x[3]))).toBe(true);
    const rej = fs.readFileSync(rejects, 'utf8').trimEnd().split('\n');
    expect(rej[0]).toBe('line,reason,record');
    expect(rej.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(Object.keys(badLines).map(Number));
    const short = Object.keys(badLines).find((l) => badLines[Number(l)].startsWith('2 fields'));
    expect(rej).toContain(`${short},"2 fields, expected at least 4","NOISY,S1"`);
  }, 120_000);

  it('--strict fails on bad rows with exit code 1 and writes nothing', () => {
    const out = path.join(dir, 'strict.csv');
    const rejects = path.join(dir, 'strict_rejects.csv');
    const r = cli(['--input', input, '--output', out, '--strict', '--horizon', '2', '--rejects', rejects]);
    expect(r.status).toBe(1);
    expect(fs.readFileSync(rejects, 'utf8').trimEnd().split('\n')).toHaveLength(1 + 4);
    for (const [line, reason] of Object.entries(badLines)) expect(r.stderr).toContain(`line ${line}: ${reason}\n`);
    expect(r.stderr).toContain(`4 bad rows in ${input}: nothing forecast (--strict)`);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 60_000);

  it('writes the series that could be forecast and exits 1 naming the one that could not', () => {
    const file = path.join(dir, 'short.csv');
    const rows = ['item_id,site_id,ds,y'];
    for (let w = 0; w < 20; w++) rows.push(`LONG,S,${dateOfDay(first + 7 * w)},${10 + (w % 4)}`);
    for (let w = 17; w < 20; w++) rows.push(`SHORT,S,${dateOfDay(first + 7 * w)},5`);
    fs.writeFileSync(file, rows.join('\n'));
    const out = path.join(dir, 'short_out.csv');
    const summary = path.join(dir, 'short_sum.csv');
    const r = cli(['--input', file, '--output', out, '--summary', summary, '--methods', 'arima', '--horizon', '3', '--threads', '1', '--outliers', 'none']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/series item_id=SHORT site_id=S: not forecast: no forecasting method could run on this series \(arima: arima needs at least 10 observations, got 3\)\n/);
    expect(r.stderr).toContain('1 of 2 series could not be forecast; the others were written');
    expect(JSON.parse(r.stdout)).toMatchObject({ series: 2, forecast_rows: 3, failed_series: 1, first_forecast_week: dateOfDay(first + 7 * 20) });
    const fc = readCsv(out).slice(1);
    expect(fc.map((x) => [x[0], x[2], x[3]])).toEqual([0, 1, 2].map((k) => ['LONG', dateOfDay(first + 7 * (20 + k)), 'arima']));
    const sum = readCsv(summary).slice(1);
    expect(sum[1].slice(0, 5)).toEqual(['SHORT', 'S', '3', 'smooth', '']);
    expect(sum[1].slice(9).join(',')).toMatch(/no forecasting method could run/);
  }, 60_000);

  it('a broken file, a missing column or a bad option stops with the reason', () => {
    const broken = path.join(dir, 'broken.csv');
    fs.writeFileSync(broken, 'item_id,site_id,ds,y\nA,S,2024-01-01,1\n"A,S,2024-01-08,2\n');
    const r1 = cli(['--input', broken, '--output', path.join(dir, 'x.csv')]);
    expect(r1.status).toBe(1);
    expect(r1.stderr).toContain('line 3: a quoted field is not closed before the end of the file');

    const noY = path.join(dir, 'noy.csv');
    fs.writeFileSync(noY, 'item_id,site_id,ds,qty\nA,S,2024-01-01,1\n');
    const r2 = cli(['--input', noY, '--output', path.join(dir, 'x.csv')]);
    expect(r2.status).toBe(1);
    expect(r2.stderr).toContain('line 1: missing column y');

    const r3 = cli(['--input', input, '--output', path.join(dir, 'x.csv'), '--methods', 'ets,prophet']);
    expect(r3.status).toBe(2);
    expect(r3.stderr).toContain('--methods: unknown method prophet');
    const r4 = cli(['--input', input]);
    expect(r4.status).toBe(2);
    expect(r4.stderr).toContain('--output <forecasts.csv> is required');
    const r5 = cli(['--input', input, '--output', path.join(dir, 'x.csv'), '--horizon', '0']);
    expect(r5.status).toBe(2);
    expect(r5.stderr).toContain("--horizon must be an integer from 1 to 520, got '0'");
    const r6 = cli(['--input', path.join(dir, 'missing.csv'), '--output', path.join(dir, 'x.csv')]);
    expect(r6.status).toBe(1);
    expect(r6.stderr).toContain('ENOENT');
    expect(fs.existsSync(path.join(dir, 'x.csv'))).toBe(false);
  }, 120_000);
});
