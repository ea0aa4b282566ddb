// What a Lambda bundle carries in place of `debug` (swapped for this file by `buildLambdaBundle`).
// Its one user there is file-type's ZIP reader (@tokenizer/inflate, in the storage group), whose
// messages print only when the DEBUG variable names their namespace, which no deployed function
// sets; the package, with its terminal colour detection, is some 10 KB. The dev server and tests
// run the real one.

/** A `debug` logger that is never enabled. */
interface DisabledDebugger {
  (...message: unknown[]): void;
  readonly namespace: string;
  readonly enabled: false;
  extend(namespace: string, delimiter?: string): DisabledDebugger;
}

export default function createDebug(namespace: string): DisabledDebugger {
  const log = (..._message: unknown[]): void => {};
  return Object.assign(log, {
    namespace,
    enabled: false as const,
    extend: (child: string, delimiter = ':') => createDebug(`${namespace}${delimiter}${child}`),
  });
}
