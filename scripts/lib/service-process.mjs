// How every part of the platform (gateway and services) is started, so that what the bench measures
// is what runs: `npm start` and the bench use these; deploy/Dockerfile and the k8s manifests repeat
// them as environment variables (NODE_OPTIONS, MALLOC_MMAP_THRESHOLD_).
//
// Both settings are about memory an idle part gives back after a load (docs/PERFORMANCE.md):
// - --max-semi-space-size=8: V8 lets the young generation grow to 2 × 16 MiB under load and shrinks
//   it only after a full collection, which a part that answers small requests may never run;
// - MALLOC_MMAP_THRESHOLD_=131072: glibc raises its threshold for serving an allocation from mmap
//   each time a large block is freed, so later large buffers (a 2 MB tree answer, the rows it came
//   from) come from the heap, whose free pages stay resident; a fixed threshold keeps them mmapped
//   and returned on free. Without it the document service stayed at ~170 MiB, with a 26 MiB V8 heap.
export const serviceNodeFlags = ['--max-semi-space-size=8'];
export const serviceEnv = { MALLOC_MMAP_THRESHOLD_: '131072' };
