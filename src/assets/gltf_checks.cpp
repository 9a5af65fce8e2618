#include "assets/gltf_checks.hpp"

#include <array>
#include <cctype>
#include <initializer_list>
#include <string>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets::gltf {
namespace {

constexpr std::string_view kTransform = "KHR_texture_transform";
// Texture extensions whose images are Basis Universal: the ratified one (KTX2 images) and
// Google's earlier one (.basis files).
constexpr std::array<std::string_view, 2> kBasisExtensions{"KHR_texture_basisu",
                                                           "GOOGLE_texture_basis"};

bool ends_with_ignoring_case(std::string_view text, std::string_view suffix) {
    if (text.size() < suffix.size()) return false;
    text.remove_prefix(text.size() - suffix.size());
    for (std::size_t i = 0; i < suffix.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[i])) != suffix[i]) return false;
    }
    return true;
}

const JsonValue* member_path(const JsonValue* value, std::initializer_list<std::string_view> keys) {
    for (const std::string_view key : keys) value = value ? value->find(key) : nullptr;
    return value;
}

// "material 2 ('floor')" for messages.
std::string material_name(const JsonValue& material, std::size_t index) {
    const JsonValue* name = material.find("name");
    return name && name->type == JsonValue::Type::String
               ? str("material ", index, " ('", name->text, "')")
               : str("material ", index);
}

bool is_basis_image(const JsonValue* image) {
    if (image == nullptr) return false;
    const JsonValue* mime = image->find("mimeType");
    const JsonValue* uri = image->find("uri");
    return (mime && (mime->text == "image/ktx2" || mime->text == "image/basis")) ||
           (uri && (ends_with_ignoring_case(uri->text, ".ktx2") ||
                    ends_with_ignoring_case(uri->text, ".basis")));
}

// Why texture `texture` cannot give a base colour, or empty if it can.
std::string unusable_texture(const JsonValue& doc, const JsonValue& texture) {
    const JsonValue* source = texture.find("source");
    if (source == nullptr || !source->as_index()) {
        for (const std::string_view extension : kBasisExtensions) {
            if (member_path(&texture, {"extensions", extension}))
                return str("its only image is KTX2 / Basis (", extension,
                           ", no PNG/JPEG fallback source)");
        }
        return {};
    }
    const JsonValue* image = member_path(&doc, {"images"});
    image = image ? image->at(*source->as_index()) : nullptr;
    return is_basis_image(image) ? str("its image ", *source->as_index(), " is KTX2 / Basis")
                                 : std::string();
}

void check_texture_image(const JsonValue& doc, const JsonValue& info, const std::string& material,
                         std::string_view origin) {
    const JsonValue* index = info.find("index");
    const JsonValue* textures = doc.find("textures");
    const JsonValue* texture =
        index && index->as_index() && textures ? textures->at(*index->as_index()) : nullptr;
    if (texture == nullptr) return;  // Assimp reports bad references itself
    const std::string why = unusable_texture(doc, *texture);
    BATCHSIM_CHECK(why.empty(), Unsupported,
                   str("glTF '", origin, "': ", material, " takes its base colour from texture ",
                       *index->as_index(), ", but ", why,
                       "; batchsim cannot decode KTX2 / Basis Universal textures: ", kKtx2Advice));
}

// Assimp applies KHR_texture_transform's offset, rotation and scale but reads the texture
// coordinates named by the textureInfo, never the extension's texCoord.
void check_transform_texcoord(const JsonValue& info, const std::string& material,
                              std::string_view origin) {
    const JsonValue* transform_set = member_path(&info, {"extensions", kTransform, "texCoord"});
    if (transform_set == nullptr) return;
    const JsonValue* own = info.find("texCoord");
    const std::size_t set = own && own->as_index() ? *own->as_index() : 0;
    BATCHSIM_CHECK(transform_set->as_index() == set, Unsupported,
                   str("glTF '", origin, "': ", material, "'s base-colour texture has ", kTransform,
                       " texCoord ", transform_set->number, " in place of its texCoord ", set,
                       ", which the glTF reader (Assimp) ignores; expected the two to agree: "
                       "re-export with baseColorTexture.texCoord = ",
                       transform_set->number));
}

}  // namespace

void check_base_color_textures(const JsonValue& doc, std::string_view origin) {
    const JsonValue* materials = doc.find("materials");
    if (materials == nullptr) return;
    for (std::size_t m = 0; m < materials->items.size(); ++m) {
        const JsonValue& material = materials->items[m];
        const JsonValue* info =
            member_path(&material, {"pbrMetallicRoughness", "baseColorTexture"});
        if (info == nullptr) continue;
        const std::string name = material_name(material, m);
        check_texture_image(doc, *info, name, origin);
        check_transform_texcoord(*info, name, origin);
    }
}

}  // namespace batchsim::assets::gltf
