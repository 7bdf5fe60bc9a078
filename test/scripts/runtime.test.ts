// The Node.js the production image runs (deploy/Dockerfile) against the Node release schedule, and
// against what the code promises to run on (package.json engines, where development and CI run).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/**
 * The last day of security fixes of each Node LTS line (the Node.js release schedule). A line
 * absent here is not an LTS line (odd majors never are).
 */
const LTS_END_OF_LIFE: Record<number, string> = {
  20: '2026-04-30',
  22: '2027-04-30',
  24: '2028-04-30',
  26: '2029-04-30',
};

function imageNodeMajor(): number {
  const image = /^ARG NODE_IMAGE=node:(\d+)[.-]/m.exec(read('deploy/Dockerfile'));
  if (!image) throw new Error('deploy/Dockerfile has no ARG NODE_IMAGE=node:<major>...');
  return Number(image[1]);
}

describe('the Node.js of the production image', () => {
  it('is an LTS line that still gets security fixes', () => {
    const major = imageNodeMajor();
    const endOfLife = LTS_END_OF_LIFE[major];
    expect(endOfLife, `node ${major} is not an LTS line`).toBeDefined();
    // Past that day, move the image to a newer LTS line (and add it to the table above).
    expect(new Date(`${endOfLife}T23:59:59Z`).getTime()).toBeGreaterThan(Date.now());
  });

  it('is within what package.json promises to run on, whose oldest line runs development and CI', () => {
    const pkg = JSON.parse(read('package.json'));
    const oldest = /^>=(\d+)\.(\d+)$/.exec(pkg.engines.node);
    expect(oldest, 'engines.node is ">=<major>.<minor>"').not.toBeNull();
    expect(imageNodeMajor()).toBeGreaterThanOrEqual(Number(oldest?.[1]));
    // The types are the oldest line's, so that the code uses nothing the oldest runtime lacks.
    expect(pkg.devDependencies['@types/node']).toMatch(new RegExp(`^~${oldest?.[1]}\\.`));
  });
});
