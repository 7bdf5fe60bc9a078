import { SingleFlight } from './single-flight.js';

describe('SingleFlight', () => {
  it('shares one running load between concurrent callers, and runs again afterwards', async () => {
    const flight = new SingleFlight<number>();
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([flight.run('k', load), flight.run('k', load)])).toEqual([1, 1]);
    expect(await flight.run('k', load)).toBe(2);
  });
});
