import { dbmonProject } from "@dbmon/vitest-config";

export default dbmonProject("monitoring");
