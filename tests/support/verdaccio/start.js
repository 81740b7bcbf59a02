const { runServer } = require("verdaccio");
runServer(process.argv[2]).then((app) => {
  const server = app.listen(0, "127.0.0.1", () => {
    process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  });
});
