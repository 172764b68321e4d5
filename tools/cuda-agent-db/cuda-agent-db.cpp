//===- cuda-agent-db.cpp - The kernel database tool -------------*- C++ -*-===//
//
// Lists, shows, exports, imports and prunes the kernel database (see
// include/cuda-agent/KernelDb/KernelDb.h): `cuda-agent-db [--db PATH] VERB
// [ARG] [options]`. Only `import` creates a database; the other verbs read
// (or, for prune, shrink) an existing one. Errors go to stderr; exit code 1.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/KernelDb/KernelDb.h"
#include "cuda-agent/KernelDb/ResultImport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::cuda_agent;
namespace cl = llvm::cl;

static cl::OptionCategory category("cuda-agent-db options");

static cl::list<std::string> positional(cl::Positional,
                                        cl::desc("<command> [<argument>]"),
                                        cl::cat(category));
static cl::opt<std::string>
    dbPath("db",
           cl::desc("The database file (default: "
                    "$XDG_CACHE_HOME/cuda-agent/kernels.db, else "
                    "$HOME/.cache/cuda-agent/kernels.db)."),
           cl::value_desc("path"), cl::cat(category));
static cl::opt<std::string>
    hashPrefix("hash",
               cl::desc("list, decisions: only regions whose hash starts "
                        "with this prefix, e.g. --hash 3f2a9c."),
               cl::value_desc("prefix"), cl::cat(category));
static cl::opt<std::string>
    archFilter("arch", cl::desc("list: only kernels for this arch, e.g. "
                                "--arch sm_90."),
               cl::value_desc("sm_NN"), cl::cat(category));
static cl::opt<std::string>
    outputPath("o", cl::desc("export: write the JSON to this file instead of "
                             "stdout, e.g. -o kernels.json."),
               cl::value_desc("file"), cl::init("-"), cl::cat(category));
static cl::opt<unsigned>
    keepBest("keep", cl::desc("prune: keep the N fastest kernels of every "
                              "key, e.g. --keep 3."),
             cl::value_desc("N"), cl::cat(category));
static cl::opt<std::string>
    olderThan("older-than", cl::desc("prune: only kernels created before "
                                     "this day, e.g. --older-than 2025-01-31."),
              cl::value_desc("YYYY-MM-DD"), cl::cat(category));

static constexpr const char *kOverview = R"(cuda-agent-db: the cuda-agent kernel database

Every kernel a GPU machine verified, keyed by (region hash, arch, CUDA
version, contract version), and every splice decision. A compile with
verify=db splices only kernels found here.

Usage: cuda-agent-db [--db PATH] <command> [<argument>] [options]

Commands:
  list [--hash PREFIX] [--arch sm_NN]
      One line per kernel: id, hash (first 12 digits), arch, CUDA version,
      contract version, agent/model, speedup, creation date.
  show ID
      The whole record of kernel ID, its source last.
  export [-o FILE]
      The whole database as JSON, to stdout or FILE.
  import FILE
      Adds the kernels and decisions of an export (FILE '-' is stdin),
      creating the database if needed. Importing a file twice adds nothing
      the second time.
  import-results DIR
      Adds the kernels that `cuda-agent-run --jobs DIR` accepted (the jobs
      that --agent-lower="verify=bundle:DIR" wrote), and one decision per
      job, creating the database if needed.
  prune [--keep N] [--older-than YYYY-MM-DD]
      Removes kernels: with --keep, those ranked below the N fastest of
      their key; with --older-than, those created before that day; with
      both, only kernels that match both. Decisions are kept.
  decisions [--hash PREFIX]
      One line per decision: id, hash, arch, spliced/default, kernel,
      date, reason.

Examples:
  cuda-agent-db list --arch sm_90
  cuda-agent-db show 12
  cuda-agent-db --db team/kernels.db export -o kernels.json
  cuda-agent-db import kernels.json
  cuda-agent-db --db kernels.db import-results jobs
  cuda-agent-db prune --keep 3 --older-than 2025-01-31
  cuda-agent-db decisions --hash 3f2a9c
)";

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "cuda-agent-db") << message << "\n";
  return 1;
}

static int fail(llvm::Error error) { return fail(toString(std::move(error))); }

static std::string shortHash(llvm::StringRef hash) {
  return hash.take_front(12).str();
}

static llvm::Expected<std::unique_ptr<KernelDb>> openDb(bool create) {
  std::string path = dbPath.empty() ? KernelDb::defaultPath().str() : dbPath;
  if (path.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no database path: pass --db PATH (neither XDG_CACHE_HOME nor HOME "
        "is set)");
  return KernelDb::open(path, create);
}

static int runList(KernelDb &db) {
  llvm::Expected<std::vector<KernelRecord>> kernels =
      db.listKernels({hashPrefix, archFilter});
  if (!kernels)
    return fail(kernels.takeError());
  for (const KernelRecord &k : *kernels)
    llvm::outs() << llvm::formatv(
        "{0,4}  {1}  {2,-6}  cuda {3}  contract {4}  {5,-32}  {6,7:F2}x  "
        "{7}\n",
        k.id, shortHash(k.key.regionHash), k.key.arch, k.key.cudaVersion,
        k.key.contractVersion, k.agent + "/" + k.model, k.speedup,
        k.createdAt);
  return 0;
}

static int runShow(KernelDb &db, llvm::StringRef arg) {
  int64_t id;
  if (!llvm::to_integer(arg, id, 10))
    return fail("show needs a kernel id (a number), not '" + arg + "'");
  llvm::Expected<std::optional<KernelRecord>> kernel = db.getKernel(id);
  if (!kernel)
    return fail(kernel.takeError());
  if (!*kernel)
    return fail("no kernel with id " + arg + " in " + db.path());
  const KernelRecord &k = **kernel;
  llvm::raw_ostream &os = llvm::outs();
  os << "id:               " << k.id << "\n"
     << "region hash:      " << k.key.regionHash << "\n"
     << "arch:             " << k.key.arch << "\n"
     << "cuda version:     " << k.key.cudaVersion << "\n"
     << "contract version: " << k.key.contractVersion << "\n"
     << "agent:            " << k.agent << "\n"
     << "model:            " << k.model << "\n"
     << llvm::formatv("reference:        {0} us\n", k.refUs)
     << llvm::formatv("candidate:        {0} us\n", k.candUs)
     << llvm::formatv("speedup:          {0:F2}x\n", k.speedup)
     << "verified on:      " << k.verifiedOn << "\n"
     << "created:          " << k.createdAt << "\n"
     << "launch plan:      " << k.launchPlanJson << "\n"
     << "verification:     " << k.verification << "\n"
     << "source:\n"
     << k.source;
  if (!llvm::StringRef(k.source).ends_with("\n"))
    os << "\n";
  return 0;
}

static int runExport(KernelDb &db) {
  llvm::Expected<llvm::json::Value> json = db.exportJson();
  if (!json)
    return fail(json.takeError());
  std::error_code ec;
  llvm::raw_fd_ostream os(outputPath, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return fail("cannot write " + outputPath + ": " + ec.message());
  os << llvm::formatv("{0:2}", *json) << "\n";
  return 0;
}

static int runImport(KernelDb &db, llvm::StringRef file) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(file, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read " + file + ": " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail(file + " is not JSON: " + toString(json.takeError()));
  ImportStats stats;
  if (llvm::Error error = db.importJson(*json, &stats))
    return fail(std::move(error));
  llvm::outs() << llvm::formatv(
      "imported {0} kernels ({1} already present) and {2} decisions ({3} "
      "already present) into {4}\n",
      stats.kernelsAdded, stats.kernelsSkipped, stats.decisionsAdded,
      stats.decisionsSkipped, db.path());
  return 0;
}

static int runImportResults(KernelDb &db, llvm::StringRef dir) {
  llvm::Expected<ImportedResults> imported = importJobResults(db, dir);
  if (!imported)
    return fail(imported.takeError());
  llvm::outs() << llvm::formatv(
      "imported {0} verified kernels and {1} decisions from {2} jobs into {3}",
      imported->kernelsAdded, imported->decisions, imported->jobsRun,
      db.path());
  if (imported->jobsNotRun)
    llvm::outs() << llvm::formatv("; {0} jobs have no result yet",
                                  imported->jobsNotRun);
  llvm::outs() << "\n";
  return 0;
}

static int runPrune(KernelDb &db) {
  PruneOptions options;
  if (keepBest.getNumOccurrences())
    options.keepBest = keepBest;
  if (olderThan.getNumOccurrences())
    options.olderThan = olderThan;
  llvm::Expected<int> removed = db.prune(options);
  if (!removed)
    return fail(removed.takeError());
  llvm::outs() << "pruned " << *removed << " kernels from " << db.path()
               << "\n";
  return 0;
}

static int runDecisions(KernelDb &db) {
  llvm::Expected<std::vector<DecisionRecord>> decisions =
      db.listDecisions(hashPrefix);
  if (!decisions)
    return fail(decisions.takeError());
  for (const DecisionRecord &d : *decisions) {
    std::string kernel =
        d.kernelId >= 0 ? "kernel " + std::to_string(d.kernelId) : "-";
    llvm::outs() << llvm::formatv("{0,4}  {1}  {2,-6}  {3,-7}  {4,-10}  {5}  "
                                  "{6}\n",
                                  d.id, shortHash(d.regionHash), d.arch,
                                  d.decision, kernel, d.createdAt, d.reason);
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);

  if (positional.empty())
    return fail("no command given; try --help");
  llvm::StringRef verb = positional[0];
  // How many arguments each command takes after its name (-1: unknown).
  int arity = llvm::StringSwitch<int>(verb)
                  .Cases({"list", "export", "prune", "decisions"}, 0)
                  .Cases({"show", "import", "import-results"}, 1)
                  .Default(-1);
  if (arity < 0)
    return fail("unknown command '" + verb +
                "'; commands: list, show, export, import, import-results, "
                "prune, decisions");
  if (static_cast<int>(positional.size()) != 1 + arity)
    return fail(verb +
                (arity ? " takes one argument" : " takes no arguments") +
                "; try --help");

  // An option given to a command that ignores it is a mistake.
  struct Use {
    const cl::Option &option;
    std::initializer_list<llvm::StringRef> verbs;
  };
  for (const Use &use : {Use{hashPrefix, {"list", "decisions"}},
                         Use{archFilter, {"list"}}, Use{outputPath, {"export"}},
                         Use{keepBest, {"prune"}}, Use{olderThan, {"prune"}}}) {
    if (use.option.getNumOccurrences() && !llvm::is_contained(use.verbs, verb))
      return fail("--" + use.option.ArgStr + " does not apply to " + verb);
  }

  llvm::Expected<std::unique_ptr<KernelDb>> db =
      openDb(/*create=*/verb.starts_with("import"));
  if (!db)
    return fail(db.takeError());
  if (verb == "list")
    return runList(**db);
  if (verb == "show")
    return runShow(**db, positional[1]);
  if (verb == "export")
    return runExport(**db);
  if (verb == "import")
    return runImport(**db, positional[1]);
  if (verb == "import-results")
    return runImportResults(**db, positional[1]);
  if (verb == "prune")
    return runPrune(**db);
  return runDecisions(**db);
}
