#include "assets/import_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>
#include <string_view>

#include <assimp/DefaultIOStream.h>

#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

// DefaultIOStream's constructor from a FILE* is protected.
class FileStream : public Assimp::DefaultIOStream {
public:
    FileStream(FILE* file, const std::string& name) : DefaultIOStream(file, name) {}
};

bool reads_only(std::string_view mode) {
    return mode.find_first_of("wa+") == std::string_view::npos;
}

}  // namespace

bool RegularFileSystem::Exists(const char* file) const {
    struct stat info {};
    return file != nullptr && ::stat(file, &info) == 0;
}

Assimp::IOStream* RegularFileSystem::Open(const char* file, const char* mode) {
    if (file == nullptr || mode == nullptr) return nullptr;
    if (!reads_only(mode)) return DefaultIOSystem::Open(file, mode);
    try {
        OpenFile opened = open_for_reading(file, "file");
        FILE* stream = ::fdopen(opened.fd.get(), "rb");
        if (stream == nullptr) return nullptr;
        opened.fd.release();  // the stream owns it now
        return new FileStream(stream, file);
    } catch (const Error& error) {
        if (refusal_.empty() && error.kind() == Error::Kind::InvalidArgument)
            refusal_ = error.what();
        return nullptr;  // Assimp reports a file it cannot open in its own way
    }
}

RegularFileSystem& read_regular_files_only(Assimp::Importer& importer) {
    auto* files = new RegularFileSystem();
    importer.SetIOHandler(files);
    return *files;
}

void check_no_refusal(const RegularFileSystem& files, const std::string& model) {
    BATCHSIM_CHECK(files.refusal().empty(), InvalidArgument,
                   str("cannot import model '", model, "': ", files.refusal()));
}

}  // namespace batchsim::assets
