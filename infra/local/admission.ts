// How many requests the dev server works on at once; the rest wait here, first come first served.
// Deployed, every Lambda invocation is served alone and API Gateway queues or throttles the rest; one
// process serving everything has no such bound. Without one, under 1,000 connections every request
// started at once and each statement waited behind the statements of all the others in the database
// pool's queue, so a request of several statements in a row (an upload: bucket, object, bytes,
// record) waited that long for each and ran out of its 29 s (load benchmark: about 1,000 uploads
// answered 503 in 60 s). Admitted a bounded number at a time, a request's statements wait only
// behind those of the requests being served, and its time limit counts from its admission.
export interface Admission {
  /** Runs `work` once a place is free; the place is given back when `work` settles. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

export function admission(limit: number): Admission {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    async run(work) {
      if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else running += 1;
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        // The place passes straight to the next in line, so the count stays as it is.
        if (next !== undefined) next();
        else running -= 1;
      }
    },
  };
}
