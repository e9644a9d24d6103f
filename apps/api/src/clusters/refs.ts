/** A cluster as a path names it: a stored cluster, or an auto-detected one by its topology id. */
export type ClusterRef =
  | { kind: "stored"; id: number }
  | { kind: "server"; connectionId: number }
  | { kind: "spock"; prefix: string };

export function parseClusterRef(value: string): ClusterRef {
  if (value.startsWith("server-")) {
    return { kind: "server", connectionId: Number(value.slice("server-".length)) };
  }
  if (value.startsWith("cluster-spock-")) {
    return { kind: "spock", prefix: value.slice("cluster-spock-".length) };
  }
  return { kind: "stored", id: Number(value.replace(/^cluster-/, "")) };
}

/** The keys an auto-detected cluster id stands for: every kind a single server can head. */
export function autoKeysOf(ref: Exclude<ClusterRef, { kind: "stored" }>): string[] {
  return ref.kind === "spock"
    ? [`spock:${ref.prefix}`]
    : [`binary:${ref.connectionId}`, `standalone:${ref.connectionId}`, `logical:${ref.connectionId}`];
}

/** The topology id of a stored cluster. */
export function topologyClusterId(id: number, autoKey: string | null): string {
  if (autoKey?.startsWith("spock:")) {
    return `cluster-spock-${autoKey.slice("spock:".length)}`;
  }
  const headed = autoKey?.match(/^(?:binary|logical|standalone):(\d+)$/);
  return headed ? `server-${headed[1]}` : `cluster-${id}`;
}

export type ClusterType = "spock" | "spock_ha" | "binary" | "logical" | "server" | "manual";

export function clusterTypeOf(autoKey: string | null, hasStandbys: boolean): ClusterType {
  const kind = autoKey?.split(":")[0];
  switch (kind) {
    case "spock":
      return hasStandbys ? "spock_ha" : "spock";
    case "binary":
      return "binary";
    case "logical":
      return "logical";
    case "standalone":
      return "server";
    default:
      return "manual";
  }
}
