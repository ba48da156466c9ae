// A callback-style Fastify hook that goes on after a promise (the gateway's verdict, a session or a
// rate limit read from a store): the hot path answers without a promise when memory has the answer,
// and only a miss waits. Waiting must never leave a request hanging or the process exposed to an
// unhandled rejection (Node 20 exits on one): a rejection, or a throw from the continuation before it
// called `done`, ends the hook with `done(error)`, which Fastify answers through the surface's error
// handler. `done` runs at most once.

import type { FastifyRequest, HookHandlerDoneFunction } from "fastify";

export function continueHookAfter<Value>(
  request: FastifyRequest,
  pending: Promise<Value>,
  then: (value: Value, done: HookHandlerDoneFunction) => void,
  done: HookHandlerDoneFunction,
): void {
  let called = false;
  const once: HookHandlerDoneFunction = (error?: Error) => {
    if (called) return;
    called = true;
    done(error);
  };
  pending
    .then((value) => then(value, once))
    .catch((error: unknown) => {
      if (!called) once(error instanceof Error ? error : new Error(String(error)));
      // The request already went on: what threw after that is Fastify's to answer; only say so.
      else request.log.error({ err: error }, "a hook's continuation threw after the request went on");
    });
}
