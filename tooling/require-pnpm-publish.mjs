// prepublishOnly of the published packages. Their package.json points `exports` at the TypeScript
// sources for the workspace; the published entry points are in `publishConfig`, which pnpm applies
// when it packs and npm ignores. `npm publish` would ship a package whose imports resolve to files
// it does not contain, so only pnpm may publish (`pnpm publish`, or `changeset publish`, which runs it).
const agent = process.env.npm_config_user_agent ?? "";
if (!agent.startsWith("pnpm/")) {
  console.error(
    `${process.env.npm_package_name ?? "This package"} is published with pnpm only ('pnpm publish' or 'pnpm release'): ` +
      "its exports for npm users are in publishConfig, which only pnpm applies. " +
      `This publish runs under '${agent.split(" ")[0] || "an unknown client"}'.`,
  );
  process.exit(1);
}
