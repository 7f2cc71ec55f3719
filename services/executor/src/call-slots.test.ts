import { metrics } from '@kairos/runtime';
import { createCallSlots } from './call-slots.js';

const inUse = async () => (await metrics.executorConcurrencyInUse.get()).values[0]?.value ?? 0;

/** A piece of work that runs until `finish` is called, noting how many run at once. */
function works(count: number) {
  let running = 0;
  let most = 0;
  const finishers: Array<(fail: boolean) => void> = [];
  const make = () => () =>
    new Promise<string>((resolve, reject) => {
      running += 1;
      most = Math.max(most, running);
      finishers.push((fail) => {
        running -= 1;
        if (fail) reject(new Error('call failed'));
        else resolve('recorded');
      });
    });
  return { all: Array.from({ length: count }, make), finishers, most: () => most, running: () => running };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

it('runs at most its count of calls at once, the others in order as slots free, a failed one freeing its slot', async () => {
  const slots = createCallSlots(2);
  const work = works(5);
  const results = work.all.map((each) => slots(each).catch((error: Error) => error.message));
  await settle();
  expect(work.running()).toBe(2);
  expect(await inUse()).toBe(2);

  work.finishers[0]!(true); // a failed call: its slot goes to the next one all the same
  await settle();
  expect(work.running()).toBe(2);
  work.finishers[1]!(false);
  work.finishers[2]!(false);
  await settle();
  expect(work.running()).toBe(2);
  work.finishers[3]!(false);
  work.finishers[4]!(false);

  expect(await Promise.all(results)).toEqual(['call failed', 'recorded', 'recorded', 'recorded', 'recorded']);
  expect(work.most()).toBe(2);
  expect(await inUse()).toBe(0);
});
