// The validator compiler of every listener: TypeBox's, except that a number in a query string or a
// path is taken only when it is written as one. TypeBox's conversion truncates `page=1.5` to 1 and
// reads `pageSize=true` as 1; here an integer field takes an integer literal and a number field a
// decimal literal, and anything else is the usual "must be integer" (or "must be number")
// deserialization failure, naming the field (text/plain 400 for a query on the current interface,
// the parameter error on the legacy one).

import { TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import type { FastifySchemaCompiler } from "fastify";
import type { TSchema } from "typebox";

const literals = {
  integer: /^[+-]?[0-9]+$/,
  number: /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/,
} as const;

export const exactNumberQueryCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  const validate = TypeBoxValidatorCompiler(route);
  if (route.httpPart !== "querystring" && route.httpPart !== "params") return validate;
  const properties = (route.schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const numberFields = Object.entries(properties).flatMap(([name, property]) =>
    property?.type === "integer" || property?.type === "number" ? [[name, property.type] as const] : [],
  );
  if (numberFields.length === 0) return validate;
  return (value: unknown) => {
    if (typeof value === "object" && value !== null) {
      for (const [field, type] of numberFields) {
        const raw = (value as Record<string, unknown>)[field];
        if (typeof raw === "string" && !literals[type].test(raw)) {
          return {
            error: [
              {
                keyword: "type",
                instancePath: `/${field}`,
                schemaPath: `#/properties/${field}/type`,
                params: { type },
                message: `must be ${type}`,
              },
            ],
          };
        }
      }
    }
    return validate(value);
  };
};
