import {
  ENGINE_POOL_STATUSES,
  type EngineSupplyOrder,
  FIRM_POOL_STATUSES,
  type FirmSupplyOrder,
  buildSupplyPool,
  engineOrderEntersPool,
  engineOrderToPoolEntry,
  firmArrivalWeek,
  firmOrderEntersPool,
  firmOrderToPoolEntry,
  firmRemainingQty,
} from '../../../domain/allocation/pool';

// Document 2 (supply-history-assistant.md) §2.3 and §4.3.
const NOW = new Date('2025-03-03T12:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const at = (days: number) => new Date(NOW.getTime() + days * DAY).toISOString();

const engine = (status: string | null, over: Partial<EngineSupplyOrder> = {}): EngineSupplyOrder => ({
  id: 17,
  item_id: 5,
  site_id: 2,
  qty: 40,
  arrival_week: 6,
  status,
  order_type: 'BUY',
  source_site_id: 9,
  ...over,
});

const firm = (over: Partial<FirmSupplyOrder> = {}): FirmSupplyOrder => ({
  id: 3,
  item_id: 5,
  site_id: 2,
  qty: 100,
  received_qty: 0,
  erp_status: 'firm',
  arrival_dt: at(10),
  order_type: 'BUILD',
  source_site_id: null,
  ...over,
});

describe('engine recommendations (§4.3 rule 1)', () => {
  it.each(['planned', 'constrained', 'delayed', 'expedited'])('status %s enters', (status) => {
    expect(engineOrderEntersPool({ status })).toBe(true);
  });

  it.each(['firm', 'released', 'in_transit', 'received', 'cancelled', 'PLANNED', ' planned', '', null])('status %p stays out', (status) => {
    expect(engineOrderEntersPool({ status })).toBe(false);
    expect(engineOrderToPoolEntry(engine(status))).toBeNull();
  });

  it('enters as SO_<id>, reliability 0.85, is_firm 0, qty and arrival_week as the engine wrote them', () => {
    expect(engineOrderToPoolEntry(engine('delayed'))).toEqual({
      supply_id: 'SO_17',
      item_id: 5,
      site_id: 2,
      qty: 40,
      arrival_week: 6,
      order_type: 'BUY',
      source_site_id: 9,
      reliability: 0.85,
      is_firm: 0,
    });
  });

  it('the status lists are exactly the ones of the spec', () => {
    expect([...ENGINE_POOL_STATUSES]).toEqual(['planned', 'constrained', 'delayed', 'expedited']);
    expect([...FIRM_POOL_STATUSES]).toEqual(['firm', 'released', 'in_transit']);
  });
});

describe('firm orders (§4.3 rule 2)', () => {
  it.each(['firm', 'released', 'in_transit'])('erp_status %s enters', (erp_status) => {
    expect(firmOrderEntersPool(firm({ erp_status }))).toBe(true);
  });

  it.each(['received', 'planned', 'FIRM', 'cancelled', null])('erp_status %p stays out', (erp_status) => {
    expect(firmOrderEntersPool(firm({ erp_status }))).toBe(false);
    expect(firmOrderToPoolEntry(firm({ erp_status }), NOW)).toBeNull();
  });

  it('remaining = qty - received_qty, null as 0, floored at 0', () => {
    expect(firmRemainingQty({ qty: 100, received_qty: 30 })).toBe(70);
    expect(firmRemainingQty({ qty: 100, received_qty: null })).toBe(100);
    expect(firmRemainingQty({ qty: null, received_qty: 5 })).toBe(0); // -5 floored
    expect(firmRemainingQty({ qty: null, received_qty: null })).toBe(0);
    expect(firmRemainingQty({ qty: 10, received_qty: 25 })).toBe(0); // over-received
    expect(firmRemainingQty({ qty: 10, received_qty: 10 })).toBe(0);
    expect(firmRemainingQty({ qty: 10.5, received_qty: 0.25 })).toBe(10.25);
  });

  it('enters only with remaining > 0, and its qty is the remaining quantity', () => {
    expect(firmOrderToPoolEntry(firm({ received_qty: 100 }), NOW)).toBeNull();
    expect(firmOrderToPoolEntry(firm({ received_qty: 130 }), NOW)).toBeNull();
    expect(firmOrderToPoolEntry(firm({ qty: null, received_qty: null }), NOW)).toBeNull();
    expect(firmOrderToPoolEntry(firm({ received_qty: 99.5 }), NOW)?.qty).toBe(0.5);
    expect(firmOrderToPoolEntry(firm({ received_qty: null }), NOW)?.qty).toBe(100);
  });

  it('enters as FIRM_<id>, reliability 1.0, is_firm 1', () => {
    expect(firmOrderToPoolEntry(firm({ received_qty: 25 }), NOW)).toEqual({
      supply_id: 'FIRM_3',
      item_id: 5,
      site_id: 2,
      qty: 75,
      arrival_week: 1, // 10 days → floor(10 / 7)
      order_type: 'BUILD',
      source_site_id: null,
      reliability: 1.0,
      is_firm: 1,
    });
  });

  it('arrival_week = floor(days from now / 7)', () => {
    expect(firmArrivalWeek(at(0), NOW)).toBe(0);
    expect(firmArrivalWeek(at(6.99), NOW)).toBe(0);
    expect(firmArrivalWeek(at(7), NOW)).toBe(1);
    expect(firmArrivalWeek(at(13.5), NOW)).toBe(1);
    expect(firmArrivalWeek(at(14), NOW)).toBe(2);
    expect(firmArrivalWeek(at(50 * 7 + 3), NOW)).toBe(50);
    expect(firmArrivalWeek(new Date(at(21)), NOW)).toBe(3); // a Date from a pg type parser works too
    expect(firmArrivalWeek('2025-03-10T12:00:00+01:00', NOW)).toBe(0); // 6 days 23 h: offsets are honoured
  });

  it('arrival_week clamps to 0 below (past arrivals) and to 51 above', () => {
    expect(firmArrivalWeek(at(-0.5), NOW)).toBe(0);
    expect(firmArrivalWeek(at(-30), NOW)).toBe(0);
    expect(firmArrivalWeek(at(51 * 7), NOW)).toBe(51);
    expect(firmArrivalWeek(at(51 * 7 + 6.9), NOW)).toBe(51);
    expect(firmArrivalWeek(at(52 * 7), NOW)).toBe(51);
    expect(firmArrivalWeek(at(800), NOW)).toBe(51);
    expect(firmOrderToPoolEntry(firm({ arrival_dt: at(-100) }), NOW)?.arrival_week).toBe(0);
    expect(firmOrderToPoolEntry(firm({ arrival_dt: at(1000) }), NOW)?.arrival_week).toBe(51);
  });

  it('depends on now only through the argument', () => {
    const o = firm({ arrival_dt: '2025-04-01T00:00:00Z' });
    expect(firmOrderToPoolEntry(o, new Date('2025-03-01T00:00:00Z'))?.arrival_week).toBe(4); // 31 days
    expect(firmOrderToPoolEntry(o, new Date('2025-03-25T00:00:00Z'))?.arrival_week).toBe(1); // 7 days
  });

  it('an unparseable arrival_dt throws instead of entering with a made-up week', () => {
    expect(() => firmOrderToPoolEntry(firm({ arrival_dt: 'next tuesday' }), NOW)).toThrow(RangeError);
  });
});

describe('buildSupplyPool', () => {
  it('keeps the entering rows, engine then firm, with the firm preferred by reliability', () => {
    const pool = buildSupplyPool(
      [engine('planned', { id: 1 }), engine('received', { id: 2 }), engine('expedited', { id: 3 })],
      [firm({ id: 1 }), firm({ id: 2, erp_status: 'received' }), firm({ id: 3, received_qty: 100 }), firm({ id: 4, erp_status: 'in_transit' })],
      NOW,
    );
    expect(pool.map((e) => [e.supply_id, e.reliability, e.is_firm])).toEqual([
      ['SO_1', 0.85, 0],
      ['SO_3', 0.85, 0],
      ['FIRM_1', 1, 1],
      ['FIRM_4', 1, 1],
    ]);
  });
});
