/**
 * Received firm orders and the firm block (document 2 §4.2 rules 1, 2 and 7; docs/SUPPLY.md "Received firm orders",
 * a choice where the spec is silent): rule 1 names no erp_status, so every firm order sets its type's latest firm week,
 * a received one too, while rule 7 counts only firm, released and in_transit orders as supply. A received BUY order
 * released in week 4 therefore keeps BUY out of weeks 0–3 under firm_orders_block_horizon and brings nothing; one
 * released before the planning date clamps to week 0 and blocks nothing.
 * One site, 10 a week, bought from vendor 9 with lead time 0; the firm order is 40 units, released and arriving in the
 * week given. Expedites are off: the post-processor ignores the firm block (rule 6) and would fill weeks 0–3.
 */
import { brief, firm, item, route, run, site } from './builders';

const BLOCK = { firm_orders_block_horizon: true, respect_lead_time: false };
function plan(erpStatus: string, releaseWeek: number) {
  const order = firm(1, 1, 'BUY', 40, releaseWeek, Math.max(releaseWeek, 0), { erp_status: erpStatus });
  const r = run([item(1, [site(1, Array(52).fill(10))], [route('BUY', 9, 1, 0)], [order])], BLOCK, { expedite: false });
  const buys = brief(r.orders).filter((x) => x.type === 'BUY');
  return { lfw: r.plans[0]!.latest_firm_week[0], first: buys[0], bought: buys.reduce((s, x) => s + x.qty, 0) };
}

test('a received order released in week 4 blocks BUY in weeks 0–3 like an open one, and supplies nothing', () => {
  const received = plan('received', 4);
  // nothing is bought before week 4; then the 40 short in weeks 0–3 and week 4's 10, the received 40 counting for nothing
  expect(received.lfw).toBe(4);
  expect(received.first).toMatchObject({ kind: 'PLANNED', qty: 50, release: 4, need: 4 });
  expect(received.bought).toBe(52 * 10);
  const open = plan('firm', 4);
  expect(open.lfw).toBe(4);
  expect(open.first).toMatchObject({ qty: 10, release: 4, need: 4 });
  expect(open.bought).toBe(52 * 10 - 40);
});

test('a received order released before the planning date clamps to week 0 and blocks nothing', () => {
  const received = plan('received', -2);
  expect(received.lfw).toBe(0);
  expect(received.first).toMatchObject({ qty: 10, release: 0, need: 0 });
  expect(received.bought).toBe(52 * 10);
});
