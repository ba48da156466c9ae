// The engine leader's command port (src/cluster/command-server.ts) over real HTTP: only requests
// signed with the deployment's key and a current time are taken; a repeated command id gets the first
// answer without running the command again (a retry after a lost answer, or a captured request
// replayed); a node that does not lead, or an overloaded engine, refuses without taking the command.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { pino } from "pino";
import { commandSignatureWindowMs, deriveCommandKey, signCommand } from "../../src/cluster/command-auth.js";
import { type CommandServer, startCommandServer } from "../../src/cluster/command-server.js";
import { commandGroupPath, commandPath } from "../../src/cluster/command-wire.js";
import type { SubmitResult } from "../../src/engine/engine.js";
import { EngineOverloadedError } from "../../src/engine/errors.js";
import { decodePlainData, encodePlainData } from "../../src/engine/journal-codec.js";

const key = deriveCommandKey(Buffer.alloc(32, 7));

interface Command {
  readonly type: string;
  readonly amount: bigint;
}

describe("engine command port", () => {
  const servers: CommandServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });

  const start = async (options: {
    submit?: (command: Command) => Promise<SubmitResult<{ type: string; amount: bigint }>>;
    accepting?: () => boolean;
  }) => {
    const runs: Command[] = [];
    const groupIds: (readonly string[])[] = [];
    let sequence = 0n;
    const run = async (command: Command): Promise<SubmitResult<{ type: string; amount: bigint }>> => {
      runs.push(command);
      // A command of amount 0 is refused, as a decider would.
      if (command.amount === 0n) return { ok: false, rejection: { code: "INVALID_INPUT" } };
      sequence += 1n;
      return { ok: true, sequence, nowMs: 1, events: [{ type: "done", amount: command.amount }] };
    };
    const server = await startCommandServer<Command, { type: string; amount: bigint }>({
      submit: options.submit ?? run,
      submitMany: async (commands, forwardIds) => {
        groupIds.push(forwardIds);
        const results = [];
        for (const command of commands) results.push(await run(command));
        return results;
      },
      accepting: options.accepting ?? (() => true),
      key,
      host: "127.0.0.1",
      port: 0,
      logger: pino({ level: "silent" }),
    });
    servers.push(server);
    return { server, runs, groupIds };
  };

  const post = async (
    server: CommandServer,
    body: string,
    options: { signingKey?: Buffer; timeMs?: number; path?: string } = {},
  ) => {
    const timeMs = options.timeMs ?? Date.now();
    const response = await fetch(new URL(options.path ?? commandPath, server.url), {
      method: "POST",
      body,
      headers: {
        "x-predex-time": String(timeMs),
        "x-predex-signature": signCommand(options.signingKey ?? key, timeMs, body),
      },
    });
    return {
      status: response.status,
      answer: decodePlainData<Record<string, unknown>>(await response.text()),
    };
  };

  it("runs a signed command once per id, bigint-exact, and answers a repeat with the first answer", async () => {
    const { server, runs } = await start({});
    const body = encodePlainData({ id: "a1", command: { type: "deposit", amount: 12345678901234567890n } });
    const first = await post(server, body);
    assert.equal(first.status, 200);
    assert.deepEqual(first.answer, {
      ok: true,
      sequence: 1n,
      nowMs: 1,
      events: [{ type: "done", amount: 12345678901234567890n }],
    });
    const again = await post(server, body);
    assert.deepEqual(again, first);
    assert.equal(runs.length, 1);
    await post(server, encodePlainData({ id: "a2", command: { type: "deposit", amount: 1n } }));
    assert.equal(runs.length, 2);
  });

  it("runs a group in order once per id, each command under its own forward id, and repeats the first answer", async () => {
    const { server, runs, groupIds } = await start({});
    const commands = [
      { type: "deposit", amount: 5n },
      { type: "deposit", amount: 0n },
      { type: "deposit", amount: 7n },
    ];
    const body = encodePlainData({ id: "g1", commands });
    const first = await post(server, body, { path: commandGroupPath });
    assert.equal(first.status, 200);
    assert.deepEqual(first.answer, {
      ok: true,
      results: [
        { ok: true, sequence: 1n, nowMs: 1, events: [{ type: "done", amount: 5n }] },
        { ok: false, rejection: { code: "INVALID_INPUT" } },
        { ok: true, sequence: 2n, nowMs: 1, events: [{ type: "done", amount: 7n }] },
      ],
    });
    assert.deepEqual(await post(server, body, { path: commandGroupPath }), first);
    assert.deepEqual(runs, commands);
    assert.deepEqual(groupIds, [["g1/0", "g1/1", "g1/2"]]);
    // A group body sent to the single-command path (or the reverse) is malformed.
    assert.equal((await post(server, body)).status, 400);
    const single = encodePlainData({ id: "g2", command: commands[0] });
    assert.equal((await post(server, single, { path: commandGroupPath })).status, 400);
  });

  it("refuses a request signed with another key, a stale time, or no signature, and runs nothing", async () => {
    const { server, runs } = await start({});
    const body = encodePlainData({ id: "b1", command: { type: "deposit", amount: 1n } });
    assert.equal(
      (await post(server, body, { signingKey: deriveCommandKey(Buffer.alloc(32, 8)) })).status,
      401,
    );
    assert.equal(
      (await post(server, body, { timeMs: Date.now() - commandSignatureWindowMs - 1_000 })).status,
      401,
    );
    const unsigned = await fetch(new URL(commandPath, server.url), { method: "POST", body });
    assert.equal(unsigned.status, 401);
    assert.equal(runs.length, 0);
  });

  it("answers not-leader and overloaded with 503 without keeping the id, so a retry can run it", async () => {
    let leading = false;
    const { server, runs } = await start({ accepting: () => leading });
    const body = encodePlainData({ id: "c1", command: { type: "deposit", amount: 1n } });
    const refused = await post(server, body);
    assert.equal(refused.status, 503);
    assert.equal(refused.answer.refused, "not-leader");
    leading = true;
    assert.equal((await post(server, body)).status, 200);
    assert.equal(runs.length, 1);

    let overloaded = true;
    const busy = await start({
      submit: async () => {
        if (overloaded) throw new EngineOverloadedError("queueCommandsMax", 1);
        return { ok: true, sequence: 1n, nowMs: 1, events: [] };
      },
    });
    const busyBody = encodePlainData({ id: "c2", command: { type: "deposit", amount: 1n } });
    const first = await post(busy.server, busyBody);
    assert.equal(first.status, 503);
    assert.equal(first.answer.refused, "overloaded");
    overloaded = false;
    assert.equal((await post(busy.server, busyBody)).status, 200);
  });

  it("refuses a malformed body with 400", async () => {
    const { server, runs } = await start({});
    assert.equal((await post(server, "{not json")).status, 400);
    assert.equal((await post(server, encodePlainData({ command: { type: "x" } }))).status, 400);
    assert.equal(runs.length, 0);
  });
});
