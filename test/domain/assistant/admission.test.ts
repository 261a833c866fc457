import { Admission, AdmissionRefused } from '../../../domain/assistant/admission';

/** A statement that runs until the test ends it. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return { open, work: () => done };
}
const settle = () => new Promise((r) => setImmediate(r));

test('limits per tenant and overall, then refuses with the reason once the queue is full', async () => {
  const a = new Admission({ overall: 2, perTenant: 1, queue: 0 });
  const g1 = gate();
  const p1 = a.run('A', g1.work);
  await expect(a.run('A', async () => 'x')).rejects.toEqual(new AdmissionRefused('tenant'));
  const g2 = gate();
  const p2 = a.run('B', g2.work);
  await expect(a.run('C', async () => 'x')).rejects.toEqual(new AdmissionRefused('overall'));
  expect(a.stats()).toEqual({ running: 2, waiting: 0 });
  g1.open();
  await p1;
  expect(await a.run('C', async () => 'ran')).toBe('ran');
  g2.open();
  await p2;
  expect(a.stats()).toEqual({ running: 0, waiting: 0 });
});

test('waiters run first come first served, and one tenant at its limit does not hold up the others', async () => {
  const a = new Admission({ overall: 2, perTenant: 1, queue: 3 });
  const order: string[] = [];
  const gA = gate();
  const gB = gate();
  const pA = a.run('A', gA.work);
  const pB = a.run('B', gB.work);
  const queued = [
    a.run('A', async () => void order.push('A2')),
    a.run('C', async () => void order.push('C1')),
    a.run('B', async () => void order.push('B2')),
  ];
  await expect(a.run('D', async () => 'x')).rejects.toBeInstanceOf(AdmissionRefused);
  expect(a.stats()).toEqual({ running: 2, waiting: 3 });
  expect(a.stats('A')).toEqual({ running: 1, waiting: 1 });
  // B's slot frees: A2 is first in line but A is at its limit, so C1 goes
  gB.open();
  await pB;
  await settle();
  expect(order).toEqual(['C1', 'B2']);
  gA.open();
  await pA;
  await Promise.all(queued);
  expect(order).toEqual(['C1', 'B2', 'A2']);
  expect(a.stats()).toEqual({ running: 0, waiting: 0 });
});

test('a failing statement frees its slot', async () => {
  const a = new Admission({ overall: 1, perTenant: 1, queue: 0 });
  await expect(a.run('A', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
  expect(await a.run('A', async () => 1)).toBe(1);
});

test('limits must be whole numbers, the queue may be 0', () => {
  expect(() => new Admission({ overall: 0, perTenant: 1, queue: 0 })).toThrow(/overall/);
  expect(() => new Admission({ overall: 1, perTenant: 1.5, queue: 0 })).toThrow(/perTenant/);
  expect(() => new Admission({ overall: 1, perTenant: 1, queue: -1 })).toThrow(/queue/);
});
