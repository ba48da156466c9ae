// `predex admin category create`: the operator's category nodes over the admin API (DESIGN §5),
// printing the created node as JSON, like the other admin commands.

import { parseArgs } from "node:util";
import { supportedLanguages } from "../catalog/languages.js";
import { PredexAdminClient } from "../sdk/admin-client.js";
import type { AdminConnection } from "./admin-exchange.js";

export const adminCategoryUsage = `  admin category create     create a category node
        --name NAME [--parent-id ID] [--logo-url URL]
        [--name-zh-CN NAME] [--name-en-US NAME] … (one per language: ${supportedLanguages.join(", ")})`;

export async function runAdminCategory(
  action: string | undefined,
  args: readonly string[],
  connection: (adminUrl: string | undefined) => AdminConnection,
): Promise<number> {
  const languageOptions = Object.fromEntries(
    supportedLanguages.map((language) => [`name-${language}`, { type: "string" as const }]),
  );
  const { values } = parseArgs({
    args: [...args],
    options: {
      name: { type: "string" },
      "parent-id": { type: "string" },
      "logo-url": { type: "string" },
      "admin-url": { type: "string" },
      ...languageOptions,
    },
  });
  if (action !== "create") return usageError(`predex admin category: unknown action "${action ?? ""}"`);
  const name = values.name;
  if (typeof name !== "string") return usageError("predex admin category create needs --name");
  const names: Record<string, string> = {};
  for (const language of supportedLanguages) {
    const value = (values as Record<string, unknown>)[`name-${language}`];
    if (typeof value === "string") names[language] = value;
  }
  const parentId = values["parent-id"];
  const logoUrl = values["logo-url"];
  const { url, token } = connection(
    typeof values["admin-url"] === "string" ? values["admin-url"] : undefined,
  );
  const client = new PredexAdminClient({ baseUrl: url, token });
  try {
    const created = await client.createCategory({
      name,
      ...(typeof parentId === "string" ? { parentId } : {}),
      ...(typeof logoUrl === "string" ? { logoUrl } : {}),
      ...(Object.keys(names).length === 0 ? {} : { names }),
    });
    console.log(JSON.stringify(created, null, 2));
    return 0;
  } catch (error) {
    console.error(`predex admin: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

function usageError(message: string): number {
  console.error(`${message}\n\n${adminCategoryUsage}`);
  return 2;
}
