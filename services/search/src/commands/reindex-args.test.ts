import { parseReindexArgs, ReindexUsageError } from './reindex-args.js';

describe('npm run reindex arguments', () => {
  it('reads a workspace, --restart and a batch size', () => {
    expect(parseReindexArgs([])).toEqual({ workspaceId: undefined, restart: false, batchSize: undefined, help: false });
    expect(
      parseReindexArgs(['--workspace', 'A1B2C3D4-0000-4000-8000-00000000000F', '--restart', '--batch-size', '50']),
    ).toEqual({ workspaceId: 'a1b2c3d4-0000-4000-8000-00000000000f', restart: true, batchSize: 50, help: false });
    expect(parseReindexArgs(['--help']).help).toBe(true);
  });

  it('refuses what it cannot run, saying why', () => {
    expect(() => parseReindexArgs(['--workspace', 'acme'])).toThrow(/--workspace takes a workspace id/);
    expect(() => parseReindexArgs(['--batch-size', '0'])).toThrow(/--batch-size takes a whole number/);
    expect(() => parseReindexArgs(['--batch-size', '2.5'])).toThrow(ReindexUsageError);
    expect(() => parseReindexArgs(['--force'])).toThrow(ReindexUsageError);
    expect(() => parseReindexArgs(['everything'])).toThrow(ReindexUsageError);
    expect(() => parseReindexArgs(['--workspace'])).toThrow(ReindexUsageError);
  });
});
