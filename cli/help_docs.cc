#include "help_docs.h"

#include <sstream>
#include <utility>
#include <vector>

#include "commands.h"

namespace stepdoctor::cli {
namespace {

// A subcommand with an empty group is hidden from --help (help-man itself): hide it here too.
std::vector<const CLI::App*> VisibleSubcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
}

// The options --help lists for `app`, without -h,--help (every command has it).
std::vector<const CLI::Option*> VisibleOptions(const CLI::App& app) {
  const CLI::Option* help = app.get_help_ptr();
  return app.get_options([help](const CLI::Option* o) { return o != help && !o->get_group().empty(); });
}

// Text as roff reads it: backslashes doubled, hyphens literal, and no line starting with a
// control character.
std::string Roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
    if (c == '\n') out += "\\&";
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

// "-f, --format TEXT" / "paths TEXT ..." as the option's synopsis.
std::string OptionSynopsis(const CLI::Option& o) {
  std::string names;
  if (o.get_positional() && !o.nonpositional()) {
    names = "\\fI" + Roff(o.get_name(true)) + "\\fR";
  } else {
    for (const auto& s : o.get_snames()) names += (names.empty() ? "" : ", ") + ("\\fB\\-" + s + "\\fR");
    for (const auto& l : o.get_lnames()) names += (names.empty() ? "" : ", ") + ("\\fB\\-\\-" + Roff(l) + "\\fR");
    if (o.get_type_size_max() > 0) names += " \\fI" + Roff(o.get_type_name()) + "\\fR";
  }
  if (o.get_items_expected_max() > 1) names += " ...";
  return names;
}

// Each command, then its own subcommands as "tfrecord verify" (a command grouping several).
std::vector<std::pair<std::string, const CLI::App*>> CommandsAndNested(const CLI::App& app) {
  std::vector<std::pair<std::string, const CLI::App*>> out;
  for (const CLI::App* sub : VisibleSubcommands(app)) {
    out.emplace_back(sub->get_name(), sub);
    for (const CLI::App* nested : VisibleSubcommands(*sub))
      out.emplace_back(sub->get_name() + " " + nested->get_name(), nested);
  }
  return out;
}

}  // namespace

std::string ManPage(const CLI::App& app, const std::string& version) {
  std::string m;
  m += ".TH STEPDOCTOR 1 \"\" \"" + Roff(version) + "\" \"User Commands\"\n";
  m += ".SH NAME\nstepdoctor \\- " + Roff(app.get_description().substr(app.get_description().find(": ") + 2)) + "\n";
  m += ".SH SYNOPSIS\n";
  for (const auto& [name, sub] : CommandsAndNested(app)) {
    m += ".br\n\\fBstepdoctor " + Roff(name) + "\\fR [\\fIoptions\\fR]";
    for (const CLI::Option* o : VisibleOptions(*sub))
      if (o->get_positional() && !o->nonpositional()) m += " " + OptionSynopsis(*o);
    m += "\n";
  }
  m += ".br\n\\fBstepdoctor \\-\\-version\\fR\n";
  std::string description = app.get_description();  // "stepdoctor: finds ..."
  if (auto colon = description.find(": "); colon != std::string::npos) description.erase(colon, 1);
  m += ".SH DESCRIPTION\n" + Roff(description) + ".\n";
  m += ".PP\nInputs are recognised by their first bytes, not their names. Folders are searched "
       "recursively.\n";
  m += ".SH COMMANDS\n";
  for (const auto& [name, sub] : CommandsAndNested(app)) {
    m += ".SS " + Roff(name) + "\n" + Roff(sub->get_description()) + ".\n";
    for (const CLI::Option* o : VisibleOptions(*sub)) {
      m += ".TP\n" + OptionSynopsis(*o) + "\n" + Roff(o->get_description());
      if (o->get_required()) m += " (required)";
      m += "\n";
    }
    // The footer --help prints ("Examples:" then one command per line), kept as lines.
    std::istringstream footer(sub->get_footer());
    std::string line;
    if (std::getline(footer, line) && !line.empty()) {
      m += ".PP\n" + Roff(line) + "\n.RS\n.nf\n";
      while (std::getline(footer, line)) {
        size_t first = line.find_first_not_of(' ');
        m += Roff(first == std::string::npos ? "" : line.substr(first)) + "\n";
      }
      m += ".fi\n.RE\n";
    }
  }
  m += ".SH EXIT STATUS\n";
  m += ".TP\n" + std::to_string(kExitOk) + "\nsuccess\n";
  m += ".TP\n" + std::to_string(kExitFailOn) + "\na \\fB\\-\\-fail\\-on\\fR condition was met, or \\fBtfrecord verify\\fR found a damaged record\n";
  m += ".TP\n" + std::to_string(kExitBadInput) +
       "\nunusable input or arguments, or the report could not be written (a one-line error names the file "
       "and the reason)\n";
  m += ".PP\n\\fBrun\\fR exits with the training command's status.\n";
  m += ".SH ENVIRONMENT\n.TP\nNO_COLOR\nno colour in the text report (set to anything but empty)\n"
       ".TP\nSTEPDOCTOR_THREADS\nthreads reading the files of a folder (default: the number of cores)\n";
  return m;
}

std::string BashCompletion(const CLI::App& app) {
  std::string commands, cases;
  for (const CLI::App* sub : VisibleSubcommands(app)) {
    commands += (commands.empty() ? "" : " ") + sub->get_name();
    std::string opts = "--help";
    for (const CLI::Option* o : VisibleOptions(*sub)) {
      for (const auto& s : o->get_snames()) opts += " -" + s;
      for (const auto& l : o->get_lnames()) opts += " --" + l;
    }
    cases += "    " + sub->get_name() + ") words=\"" + opts + "\" ;;\n";
  }
  std::string s;
  s += "# bash completion for stepdoctor, generated by `stepdoctor help-bash-completion`.\n";
  s += "_stepdoctor() {\n";
  s += "  local cur=${COMP_WORDS[COMP_CWORD]} cmd=\"\" words i\n";
  s += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
  s += "    case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n";
  s += "  done\n";
  s += "  case $cmd in\n";
  s += "    \"\") words=\"" + commands + " --help --version\" ;;\n";
  s += cases;
  s += "    *) words=\"\" ;;\n";
  s += "  esac\n";
  s += "  # Subcommand names first; after one, its options when the word starts with '-', else files.\n";
  s += "  if [[ -z $cmd || $cur == -* ]]; then COMPREPLY=($(compgen -W \"$words\" -- \"$cur\")); fi\n";
  s += "}\n";
  s += "complete -o default -F _stepdoctor stepdoctor\n";
  return s;
}

}  // namespace stepdoctor::cli
