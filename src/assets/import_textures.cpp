#include "assets/import_textures.hpp"

#include <assimp/scene.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <span>

#include "assets/textures.hpp"
#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

namespace fs = std::filesystem;

TextureData load_embedded(const aiTexture& texture, std::string name) {
    if (texture.mHeight == 0) {  // compressed: mWidth bytes of PNG/JPEG/...
        const std::span<const std::uint8_t> bytes(
            reinterpret_cast<const std::uint8_t*>(texture.pcData), texture.mWidth);
        // A glTF's mimeType, as Assimp keeps it ("png", "jpg"): what the bytes should be.
        return decode_texture(bytes, std::move(name), image_kind_named(texture.achFormatHint));
    }
    std::vector<std::uint8_t> rgba;
    rgba.reserve(std::size_t{texture.mWidth} * texture.mHeight * 4);
    for (std::size_t i = 0; i < std::size_t{texture.mWidth} * texture.mHeight; ++i) {
        const aiTexel& t = texture.pcData[i];  // stored BGRA
        rgba.insert(rgba.end(), {t.r, t.g, t.b, t.a});
    }
    return make_texture(std::move(name), texture.mWidth, texture.mHeight, std::move(rgba));
}

// `path` itself, else a case-insensitive match in its folder (models made on Windows often
// say TEXTURE.PNG for texture.png); empty if neither exists. `path` is taken whatever kind
// of file it is: reading refuses a pipe or device by name rather than skipping it.
fs::path find_file(const fs::path& path) {
    std::error_code error;
    if (fs::exists(path, error)) return path;
    const auto lower = [](std::string s) {
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    const std::string wanted = lower(path.filename().string());
    for (const auto& entry : fs::directory_iterator(path.parent_path(), error)) {
        if (entry.is_regular_file(error) && lower(entry.path().filename().string()) == wanted)
            return entry.path();
    }
    return {};
}

}  // namespace

TextureLoader::TextureLoader(const aiScene& scene, fs::path model, bool missing_is_error,
                             std::vector<TextureData>& out)
    : scene_(scene), model_(std::move(model)), missing_is_error_(missing_is_error), out_(out) {}

std::uint32_t TextureLoader::index_of(const std::string& reference) {
    const auto [embedded, embedded_index] = scene_.GetEmbeddedTextureAndIndex(reference.c_str());
    std::string name = embedded ? str("*", embedded_index) : reference;
    std::replace(name.begin(), name.end(), '\\', '/');  // Windows paths inside models
    if (!embedded) name = fs::path(name).lexically_normal().generic_string();
    if (const auto found = loaded_.find(name); found != loaded_.end()) return found->second;
    try {
        const std::uint32_t index = load(name, embedded);
        loaded_.emplace(name, index);
        return index;
    } catch (const Error& error) {  // say which model the texture belongs to
        throw Error(error.kind(), str("model '", model_.string(), "': ", error.what()));
    }
}

std::uint32_t TextureLoader::load(const std::string& name, const aiTexture* embedded) {
    if (embedded) {
        out_.push_back(load_embedded(*embedded, name));
        return static_cast<std::uint32_t>(out_.size() - 1);
    }
    const fs::path folder = model_.parent_path();
    const fs::path file = find_file(folder / name);
    BATCHSIM_CHECK(!file.empty() || !missing_is_error_, FileNotFound,
                   str("texture '", name, "' does not exist; expected it beside the model, in '",
                       folder.string(), "' (copy the model's textures along with it)"));
    if (file.empty()) {
        std::cerr << "batchsim: warning: texture '" << name << "' not found next to the model in '"
                  << folder.string() << "'; its material is drawn untextured\n";
        return gpu::kNoTexture;
    }
    out_.push_back(decode_texture(read_file(file, "texture"), name));
    return static_cast<std::uint32_t>(out_.size() - 1);
}

}  // namespace batchsim::assets
