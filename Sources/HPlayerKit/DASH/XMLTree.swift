import CXMLShim

/// An XML element as plain values: its local name (namespace prefix dropped), attributes, child
/// elements and text. libxml2 parses; the manifest readers walk this, pure and testable.
package struct XMLElement: Equatable, Sendable {
    package var name: String
    package var attributes: [String: String]
    package var children: [XMLElement]
    /// All its own text, the pieces between its children joined.
    package var text: String
    /// Mixed content, in order: its text before its first child, and each child's `tail`, the
    /// text after that child (`<p>one<br/>two</p>`: "one", then "two" as the br's tail).
    package var leadingText = ""
    package var tail = ""

    package init(name: String, attributes: [String: String] = [:], children: [XMLElement] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The child elements named `name`, in order.
    package func elements(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }

    /// The first child element named `name`.
    package func element(_ name: String) -> XMLElement? { children.first { $0.name == name } }

    package subscript(attribute: String) -> String? { attributes[attribute] }
}

/// Reads a document with libxml2 into an XMLElement tree. Neither the network nor a DTD is
/// reached for, and entities are not expanded (XML_PARSE_NONET, no XML_PARSE_NOENT/DTDLOAD): a
/// manifest is a stranger's document. Elements nested deeper than `depthLimit` are refused.
package enum XMLTree {
    package static let depthLimit = 64

    package static func parse(_ bytes: [UInt8]) throws(XMLTreeError) -> XMLElement {
        var message = [CChar](repeating: 0, count: 256)
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                hp_xml_read(characters.baseAddress, Int32(clamping: characters.count), &message, Int32(message.count))
            }
        }
        guard let document else {
            let reason = String(Substring(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)).trimmingWhitespace())
            throw XMLTreeError(reason: "not well-formed XML (\(reason.isEmpty ? "not XML" : reason))")
        }
        defer { hp_xml_free(document) }
        guard let root = hp_xml_root(document) else { throw XMLTreeError(reason: "an XML document with no element") }
        return try element(root, depth: 0)
    }

    private static func element(_ node: OpaquePointer, depth: Int) throws(XMLTreeError) -> XMLElement {
        guard depth < depthLimit else { throw XMLTreeError(reason: "elements nested deeper than \(depthLimit)") }
        var result = XMLElement(name: string(hp_xml_node_name(node)))
        var attribute = hp_xml_first_attribute(node)
        while let current = attribute {
            result.attributes[string(hp_xml_attribute_name(current))] = text(of: hp_xml_attribute_first_text(current))
            attribute = hp_xml_next_attribute(current)
        }
        var child = hp_xml_first_child(node)
        while let current = child {
            switch hp_xml_node_kind(current) {
            case HP_XML_ELEMENT: result.children.append(try element(current, depth: depth + 1))
            case HP_XML_TEXT:
                let piece = string(hp_xml_node_text(current))
                result.text += piece
                if result.children.isEmpty { result.leadingText += piece } else { result.children[result.children.count - 1].tail += piece }
            default: break
            }
            child = hp_xml_next(current)
        }
        return result
    }

    /// The text of a list of text nodes (an attribute's value).
    private static func text(of first: OpaquePointer?) -> String {
        var result = ""
        var node = first
        while let current = node {
            result += string(hp_xml_node_text(current))
            node = hp_xml_next(current)
        }
        return result
    }

    private static func string(_ characters: UnsafePointer<CChar>?) -> String {
        characters.map { String(cString: $0) } ?? ""
    }
}

package struct XMLTreeError: Error, Equatable, Sendable {
    package var reason: String
}
