// Turns a schema validation failure into a sentence that names the field, for the 400 answers of
// every surface (DESIGN §6: "wrong types are 400/1001 naming the field").

import type { FastifySchemaValidationError } from "fastify";
import { httpUrlProblem, isHttpUrlPattern } from "./http-url.js";

export interface FieldProblem {
  /** Dotted path of the offending field (`outcomes.0.name`); empty for the whole value. */
  readonly field: string;
  readonly missing: boolean;
  /** What is wrong, without the field name: "must be string". */
  readonly problem: string;
}

export function describeValidationError(errors: readonly FastifySchemaValidationError[]): FieldProblem {
  const first = errors[0];
  if (first === undefined) return { field: "", missing: false, problem: "is invalid" };
  const parent = first.instancePath.split("/").filter(Boolean).join(".");
  const params = first.params as Record<string, unknown>;
  if (first.keyword === "required") {
    const requiredProperties = params.requiredProperties;
    const name = Array.isArray(requiredProperties)
      ? String(requiredProperties[0])
      : String(params.missingProperty);
    return { field: parent === "" ? name : `${parent}.${name}`, missing: true, problem: "is required" };
  }
  const nonEmpty =
    (first.keyword === "minLength" && params.limit === 1) ||
    (first.keyword === "pattern" && params.pattern === "\\S");
  if (first.keyword === "pattern" && isHttpUrlPattern(params.pattern)) {
    return { field: parent, missing: false, problem: httpUrlProblem };
  }
  return {
    field: parent,
    missing: false,
    problem: nonEmpty ? "must be a non-empty string" : problemOf(first),
  };
}

function problemOf(error: FastifySchemaValidationError): string {
  const limit = (error.params as Record<string, unknown>).limit;
  // A list's bounds in words (the validator's own is "must NOT have fewer than 1 items").
  if (error.keyword === "minItems") return `must have at least ${limit} item${limit === 1 ? "" : "s"}`;
  if (error.keyword === "maxItems") return `must have at most ${limit} item${limit === 1 ? "" : "s"}`;
  return error.message ?? "is invalid";
}
