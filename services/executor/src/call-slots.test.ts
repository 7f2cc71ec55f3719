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
  const slots = createCallSlots(2, 1024);
  const work = works(5);
  const results = work.all.map((each) => slots(100, each).catch((error: Error) => error.message));
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

it('holds the calls to the response memory their endpoints may return, in order, and runs a call larger than all of it alone', async () => {
  // 4 slots, 1 MiB: two endpoints of 512 KiB fill it; the third waits though slots are free. A call
  // larger than the budget waits for all of it, and a small one queued behind does not overtake it
  // (FIFO: a large call is not starved).
  const slots = createCallSlots(4, 1024);
  const work = works(6);
  const sizes = [512, 512, 512, 100, 4096, 100];
  const started: number[] = [];
  const results = work.all.map((each, index) =>
    slots(sizes[index]!, () => {
      started.push(index);
      return each();
    }),
  );
  await settle();
  expect(started).toEqual([0, 1]);
  expect(await inUse()).toBe(2);

  work.finishers[0]!(false);
  await settle();
  expect(started).toEqual([0, 1, 2]); // 512 + 512 again; the 100 KiB call waits its turn
  work.finishers[1]!(false);
  await settle();
  expect(started).toEqual([0, 1, 2, 3]);
  work.finishers[2]!(false);
  await settle();
  // 4096 KiB waits for the whole budget (1 MiB: all of it), and the 100 KiB call behind it with it.
  expect(started).toEqual([0, 1, 2, 3]);
  work.finishers[3]!(false);
  await settle();
  expect(started).toEqual([0, 1, 2, 3, 4]);
  expect(work.running()).toBe(1);
  work.finishers[4]!(false);
  await settle();
  expect(started).toEqual([0, 1, 2, 3, 4, 5]);
  work.finishers[5]!(false);
  expect(await Promise.all(results)).toEqual(Array(6).fill('recorded'));
  expect(await inUse()).toBe(0);
});

it('takes a free slot at once: the work starts before the caller next yields', () => {
  const slots = createCallSlots(1, 1024);
  let started = false;
  const done = slots(100, () => {
    started = true;
    return Promise.resolve('recorded');
  });
  expect(started).toBe(true);
  return expect(done).resolves.toBe('recorded');
});

it("frees a call's slot when its call ends and its response memory only when its work settles", async () => {
  // 1 slot, 300 KiB: A's call ends and B's call starts in A's slot while A is still being recorded;
  // C fits no longer (A's and B's 100 KiB reserved, C needs 200) until A's work settles.
  const slots = createCallSlots(1, 300);
  const ended: Record<string, () => void> = {};
  const recorded: Record<string, () => void> = {};
  const started: string[] = [];
  const execution = (name: string, kb: number) =>
    slots(kb, async (callEnded) => {
      started.push(name);
      await new Promise<void>((resolve) => (ended[name] = resolve));
      callEnded();
      callEnded(); // said twice: the slot is given back once
      await new Promise<void>((resolve) => (recorded[name] = resolve));
      return name;
    });
  const results = [execution('A', 100), execution('B', 100), execution('C', 200), execution('D', 1)];
  await settle();
  expect(started).toEqual(['A']);
  expect(await inUse()).toBe(1);

  ended.A!();
  await settle();
  expect(started).toEqual(['A', 'B']); // A is still recording: its memory, not its slot
  expect(await inUse()).toBe(1);
  ended.B!();
  await settle();
  expect(started).toEqual(['A', 'B']); // a free slot, but 100 KiB free for C's 200; D waits behind C
  expect(await inUse()).toBe(0);

  recorded.A!();
  await settle();
  expect(started).toEqual(['A', 'B', 'C']);
  recorded.B!();
  ended.C!();
  await settle();
  expect(started).toEqual(['A', 'B', 'C', 'D']);
  ended.D!();
  recorded.C!();
  await settle();
  recorded.D!();
  expect(await Promise.all(results)).toEqual(['A', 'B', 'C', 'D']);
  expect(await inUse()).toBe(0);
});

it('frees the slot of work that settles without saying its call ended, or fails before', async () => {
  const slots = createCallSlots(1, 1024);
  await expect(slots(100, () => Promise.reject(new Error('call failed')))).rejects.toThrow('call failed');
  await expect(slots(100, () => Promise.resolve('recorded'))).resolves.toBe('recorded');
  let startedAgain = false;
  await slots(100, () => {
    startedAgain = true;
    return Promise.resolve();
  });
  expect(startedAgain).toBe(true);
  expect(await inUse()).toBe(0);
});
