// Probes for the operator's orchestrator (DESIGN §5), answered without the admin token as
// liveness and readiness probes expect:
//   GET /healthz — the process answers (liveness: restart it if this stops answering);
//   GET /readyz  — the engine has recovered and takes commands, the database answers, and (on
//                  PostgreSQL) an engine leader holds a live lease with its command port advertised
//                  (readiness: send traffic only while this is 200; 503 otherwise).
// The engine recovers before any listener opens (src/server.ts), so a running engine means
// recovery is done; one that failed, is closing or has closed is not ready. Without a live leader
// (a database failover, every engine node rebuilding) no order could be placed: not ready either.

import { Type } from "typebox";
import { Envelope, ok } from "../../../contract/partner/envelope.js";
import { defineRoutes } from "../../shared/typebox-app.js";

/** Paths the admin guard lets through without the bearer token (src/api/admin/authentication.ts). */
export const probePaths: ReadonlySet<string> = new Set(["/healthz", "/readyz"]);

const Readiness = Type.Object({
  ready: Type.Boolean(),
  engine: Type.String({ description: "running | closing | closed | failed" }),
  database: Type.Union([Type.Literal("ok"), Type.Literal("unreachable")]),
  leader: Type.Union([Type.Literal("ok"), Type.Literal("none"), Type.Literal("unknown")], {
    description:
      "ok: the engine runs here (SQLite) or an engine leader holds a live lease; none: no leader; unknown: the database did not answer",
  }),
  replication: Type.Optional(
    Type.Object(
      {
        synchronous: Type.Boolean(),
        synchronousStandbyNames: Type.String(),
        synchronousCommit: Type.String(),
        standbys: Type.Optional(Type.Integer()),
        synchronousStandbys: Type.Optional(Type.Integer()),
        warning: Type.Optional(Type.String()),
      },
      {
        description:
          "PostgreSQL: whether a commit waits for a synchronous standby; without it a failover of the database may lose acknowledged orders",
      },
    ),
  ),
  replica: Type.Optional(
    Type.String({ description: "Why this node's copy of the journal serves nothing right now (a fork)" }),
  ),
});

/** The report without its absent fields (the schema's optional properties). */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

export default defineRoutes((app, deps) => {
  app.get(
    "/healthz",
    {
      schema: {
        summary: "Liveness: the process answers (no token)",
        tags: ["Operations"],
        response: { 200: Envelope(Type.Object({ status: Type.Literal("alive") })) },
      },
    },
    async () => ok({ status: "alive" as const }),
  );

  app.get(
    "/readyz",
    {
      schema: {
        summary: "Readiness: engine recovered and running, database reachable; else 503 (no token)",
        tags: ["Operations"],
        response: { 200: Envelope(Readiness), 503: Envelope(Readiness) },
      },
    },
    async (_request, reply) => {
      const engine = deps.engine.phase;
      let database: "ok" | "unreachable" = "ok";
      let leader: "ok" | "none" | "unknown" = "unknown";
      try {
        await deps.operations.ping();
        const lease = await deps.operations.engineLeader();
        leader = lease === undefined || lease.live ? "ok" : "none";
      } catch {
        database = "unreachable";
      }
      // Reported, not a condition of readiness: the operator chose the database's replication.
      const replication =
        database === "ok" ? await deps.operations.replication?.().catch(() => undefined) : undefined;
      // A replica resolving a fork serves nothing though its phase is still "running".
      const replica = deps.engine.unavailable;
      const ready = engine === "running" && replica === undefined && database === "ok" && leader === "ok";
      const detail = {
        ready,
        engine,
        database,
        leader,
        ...(replica === undefined ? {} : { replica }),
        ...(replication === undefined ? {} : { replication: withoutUndefined(replication) }),
      };
      if (ready) return ok(detail);
      // 2002 is the current interface's "upstream could not be reached": here, the engine, its
      // leader or the database behind the listeners.
      const reason =
        engine !== "running"
          ? `engine ${engine}`
          : (replica ?? (database !== "ok" ? "database unreachable" : "no engine leader"));
      return reply.code(503).send({ code: 2002, message: `not ready: ${reason}`, data: detail });
    },
  );
});
