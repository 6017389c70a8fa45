// A whole game through openapi-fetch with the types openapi-typescript generated
// from the served schema (schema.d.ts, written beside this file by the test): sign
// up, create a one-round game against a bot, play it to the end by sending back
// moves of `you.legal_moves`, then read its events, its log and its replay. Prints
// what it saw as one JSON object. Compiled by `tsc --strict`: no casts.
//
// Run as `node out/play.js BASE_URL`.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type GameView = components["schemas"]["GameViewOut"];
type MoveIn = components["schemas"]["MoveIn"];

const MAX_STEPS = 2000; // far more requests than a one-round game against one bot takes

function expect<T>(data: T | undefined, response: Response, what: string): T {
  if (data === undefined) {
    throw new Error(`${what}: ${response.status} ${response.statusText}`);
  }
  return data;
}

async function main(baseUrl: string): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl });
  const signUp = await anonymous.POST("/api/v1/players", { body: { name: "Generated TypeScript" } });
  const me = expect(signUp.data, signUp.response, "sign up");
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${me.token}` } });

  const created = await api.POST("/api/v1/games", { body: { max_players: 2, target_score: 0 } });
  const gameId = expect(created.data, created.response, "create").id;
  const game = { params: { path: { game_id: gameId } } };
  const bot = await api.POST("/api/v1/games/{game_id}/bots", { ...game, body: { strategy: "greedy" } });
  expect(bot.data, bot.response, "add a bot");
  const started = await api.POST("/api/v1/games/{game_id}/start", game);
  expect(started.data, started.response, "start");

  let view: GameView | undefined;
  let moves = 0;
  for (let step = 0; step < MAX_STEPS; step++) {
    const read = await api.GET("/api/v1/games/{game_id}", game);
    view = expect(read.data, read.response, "read the game");
    if (view.status !== "playing") break;
    const legal = view.you?.legal_moves ?? [];
    const first = legal[0];
    if (first === undefined) {
      const page = await api.GET("/api/v1/games/{game_id}/events", {
        params: { path: { game_id: gameId }, query: { after: view.last_seq, wait: 5 } },
      });
      expect(page.data, page.response, "wait for events");
      continue;
    }
    let move: MoveIn = first;
    if (first.action === "play" && view.you?.hand.length === 2) move = { ...first, uno: true };
    const sent = await api.POST("/api/v1/games/{game_id}/moves", { ...game, body: move });
    if (sent.response.status === 409) continue; // the bot moved first: read the game again
    expect(sent.data, sent.response, "move");
    moves += 1;
  }
  if (view === undefined || view.status === "playing") throw new Error("the game did not end");

  const events = await api.GET("/api/v1/games/{game_id}/events", game);
  const log = await api.GET("/api/v1/games/{game_id}/log", game);
  const replay = await api.GET("/api/v1/games/{game_id}/replay", {
    params: { path: { game_id: gameId }, query: { seq: view.last_seq } },
  });
  const logData = expect(log.data, log.response, "log");
  console.log(
    JSON.stringify({
      status: view.status,
      winner: view.winner,
      moves,
      last_seq: view.last_seq,
      events: expect(events.data, events.response, "events").events.map((event) => event.type),
      log: logData.events.map((event) => event.seq),
      complete: logData.complete,
      replay_seq: expect(replay.data, replay.response, "replay").seq,
    }),
  );
}

const baseUrl = process.argv[2];
if (baseUrl === undefined) throw new Error("usage: node out/play.js BASE_URL");
await main(baseUrl);
