import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { documentKeys, isFinished, jobQuery } from '../../api/queries';
import { useApi } from '../../auth/AuthContext';

/**
 * A job's state, asked for about every second (then less often) until it is done or failed; a
 * finished import refreshes what the tree shows, so its documents appear.
 */
export function useJob(jobId: string | null) {
  const api = useApi();
  const queryClient = useQueryClient();
  const job = useQuery({ ...jobQuery(api, jobId ?? ''), enabled: jobId !== null });
  const importDone = job.data?.kind === 'import' && job.data.status === 'done';
  useEffect(() => {
    if (importDone) void queryClient.invalidateQueries({ queryKey: documentKeys.all });
  }, [importDone, queryClient]);
  return { job: job.data, error: job.error, finished: isFinished(job.data) };
}
