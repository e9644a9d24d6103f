import { authOperations } from "./auth/index.js";
import type { Operation } from "./operation.js";
import { rbacGroupOperations } from "./rbac-groups/index.js";
import { rbacPrivilegeOperations } from "./rbac-privileges/index.js";
import { rbacTokenOperations } from "./rbac-tokens/index.js";
import { rbacUserOperations } from "./rbac-users/index.js";
import { serverInfoOperations } from "./server-info/index.js";
import { utilityOperations } from "./utilities/index.js";

/** Every operation of the contract, resource by resource. The API implements each one exactly once. */
export const allOperations: readonly Operation[] = [
  ...utilityOperations,
  ...serverInfoOperations,
  ...authOperations,
  ...rbacUserOperations,
  ...rbacGroupOperations,
  ...rbacTokenOperations,
  ...rbacPrivilegeOperations,
];
