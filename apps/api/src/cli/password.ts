import { readFile } from "node:fs/promises";
import { CommandError } from "./context.js";

/**
 * A new password from --password-file, from standard input when it is not a terminal, or typed
 * twice at a prompt that does not echo. Never from the command line, where `ps` would show it.
 */
export async function readNewPassword(passwordFile: string | undefined): Promise<string> {
  if (passwordFile) {
    return firstLine(await readFile(passwordFile, "utf8"));
  }
  if (!process.stdin.isTTY) {
    return firstLine(await readAll(process.stdin));
  }
  const first = await promptHidden("Password: ");
  const second = await promptHidden("Repeat the password: ");
  if (first !== second) {
    throw new CommandError("the passwords do not match");
  }
  return first;
}

function firstLine(text: string): string {
  return text.split(/\r?\n/)[0] ?? "";
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) {
    text += String(chunk);
  }
  return text;
}

function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    process.stderr.write(question);
    input.setRawMode(true);
    input.setEncoding("utf8");
    input.resume();
    let value = "";
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off("data", onData);
      process.stderr.write("\n");
      error ? reject(error) : resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n" || char === "\u0004") {
          done();
          return;
        }
        if (char === "\u0003") {
          done(new CommandError("cancelled"));
          return;
        }
        value = char === "\u007f" || char === "\b" ? value.slice(0, -1) : value + char;
      }
    };
    input.on("data", onData);
  });
}
